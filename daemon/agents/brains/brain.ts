// An execution brain turns an agent's input into {action, output, confidence}. Brains are
// swappable (simulated, openai); the service around them owns states, guardrails and events.

export interface AgentProfile {
  id: string;
  workspace_id: string;
  name: string;
  type: string;
  capabilities: Record<string, boolean>;
  personality: {
    tone: string | null;
    response_length: string | null;
    empathy_level: string | null;
  };
  brain: {
    provider: 'simulated' | 'openai' | 'replay';
    model?: string | undefined;
    /** replay: the cassette (relative to the cassette folder). */
    cassette?: string | undefined;
    /** replay: ask the real endpoint for requests the cassette lacks, and append them. */
    record_missing?: boolean | undefined;
    base_url?: string | undefined;
    /** The workspace secret holding the key for base_url. */
    api_key_secret?: string | undefined;
  } | null;
}

/** A passage of the agent's knowledge that matches the input, with how much of the input it covers (0-1). */
export interface Passage {
  text: string;
  /** The heading the passage stands under in its document (searched with it, not quoted). */
  heading?: string | null | undefined;
  documentId: string;
  coverage: number;
}

export interface BrainInput {
  agent: AgentProfile;
  input: string;
  context: Record<string, unknown>;
  passages: Passage[];
  /**
   * The action asked for (a workflow step's config.action, passed as the execution's
   * context.action), already checked to be one the agent may take: the answer takes it.
   */
  action?: string | undefined;
  /** Milliseconds the brain may take. */
  timeoutMs: number;
}

export interface BrainResult {
  action: string;
  output: string;
  confidence: number;
}

export interface Brain {
  readonly name: 'simulated' | 'openai' | 'replay';
  think(input: BrainInput): Promise<BrainResult>;
  /**
   * The same answer at once, for a brain that needs nothing but the CPU (no network): a
   * workflow runs such an agent step inside the transaction that reached it, like a condition.
   */
  thinkLocally?(input: BrainInput): BrainResult;
  /** With thinkLocally: whether this input is answered locally (else think() must). Default yes. */
  answersLocally?(input: BrainInput): boolean;
}
