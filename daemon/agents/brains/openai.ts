// A brain backed by any OpenAI-compatible chat completions endpoint (OpenAI, a local model
// server...). It asks for a JSON answer {action, output, confidence}; a plain-text answer is
// accepted with the deterministic classifier's action, and so is a proposal of an action whose
// capability is switched off (false): no brain proposes what the agent may not do. An endpoint that cannot be reached or
// errors is a 502 external_api_error.
//
// Keys: the daemon's own key (SVC_OPENAI_API_KEY) is sent only to the daemon's configured base
// URL. An agent with its own brain.base_url sends the value of the workspace secret it names in
// brain.api_key_secret, or no key at all, so that an `agents:write` key cannot point an agent
// at its own server and collect the daemon's key.
import { ApiError } from '../../domain/errors.js';
import { exceedsDepth, MAX_JSON_DEPTH } from '../../domain/json-depth.js';
import type { OutboundHttp } from '../../outbound/http.js';
import type { Brain, BrainInput, BrainResult } from './brain.js';
import { normalizeRequest, redact, requestKey, type Cassettes } from './cassette.js';
import { classify } from './classify.js';

export interface OpenAiSettings {
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
}

/** The value of a workspace secret, or undefined when the workspace has no secret of that name. */
export type SecretLookup = (workspaceId: string, name: string) => string | undefined;

/** Bytes of a model answer read at most. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

interface ChatResponse {
  choices?: { message?: { content?: string } }[];
}

export class OpenAiBrain implements Brain {
  readonly name = 'openai' as const;
  /** The cassette every answer is recorded to (svc agents record), if any. */
  private recording: string | undefined;

  constructor(
    private readonly settings: OpenAiSettings,
    private readonly outbound: OutboundHttp,
    /** Workspace secrets (svc secrets set), read for an agent's brain.api_key_secret. */
    private readonly secrets: SecretLookup,
    private readonly cassettes?: Cassettes,
  ) {}

  /** Starts (a name) or stops (undefined) recording every request and answer to a cassette. */
  recordTo(name: string | undefined): string | null {
    if (name !== undefined) this.cassettes?.file(name, 'cassette');
    this.recording = name;
    return name ?? null;
  }

  get recordingTo(): string | null {
    return this.recording ?? null;
  }

  think(input: BrainInput): Promise<BrainResult> {
    return this.ask(input, this.recording);
  }

  /** Asks the endpoint; with `recordTo`, the request and its answer go to that cassette. */
  async ask(input: BrainInput, recordTo?: string): Promise<BrainResult> {
    const { agent, timeoutMs } = input;
    const daemonBaseUrl = trimSlash(this.settings.baseUrl);
    const baseUrl = agent.brain?.base_url ? trimSlash(agent.brain.base_url) : daemonBaseUrl;
    const apiKey = this.keyFor(agent, baseUrl, daemonBaseUrl);
    const { body, fallbackAction } = chatRequest(input, agent.brain?.model ?? this.settings.model);
    const result = await this.outbound.request({
      url: `${baseUrl}/chat/completions`,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      timeoutMs,
      maxResponseBytes: MAX_ANSWER_BYTES,
      param: 'brain.base_url',
    });
    if (result.type === 'failed') {
      if (result.reason === 'timeout') {
        throw new ApiError(
          'execution_timeout',
          `The model endpoint ${baseUrl} did not answer within ${Math.round(timeoutMs / 1000)} s.`,
        );
      }
      throw new ApiError(
        'external_api_error',
        `The model endpoint ${baseUrl} could not be used: ${result.message} Check SVC_OPENAI_BASE_URL (or the agent's brain.base_url).`,
      );
    }
    if (result.status < 200 || result.status >= 300) {
      const redirect = result.status >= 300 && result.status < 400;
      throw new ApiError(
        'external_api_error',
        `The model endpoint ${baseUrl} answered HTTP ${result.status}${redirect ? ' (a redirect, which svc does not follow: use the final URL as base_url)' : ''}.`,
      );
    }
    const answer = readAnswer(
      result.body,
      `The model at ${baseUrl}`,
      fallbackAction,
      agent.capabilities,
      input.action,
    );
    if (recordTo !== undefined && this.cassettes) {
      const request = normalizeRequest(body);
      let recorded: unknown = result.body;
      try {
        recorded = JSON.parse(result.body) as unknown;
      } catch {
        // Kept as text.
      }
      const secrets = [apiKey, this.settings.apiKey].filter((key): key is string => !!key);
      await this.cassettes.record(
        recordTo,
        redact(
          {
            key: requestKey(request),
            request,
            response: { status: result.status, body: recorded },
          },
          secrets,
        ),
      );
    }
    return answer;
  }

  /** The bearer key for this call (see the file comment), or undefined to send none. */
  private keyFor(
    agent: BrainInput['agent'],
    baseUrl: string,
    daemonBaseUrl: string,
  ): string | undefined {
    const secretName = agent.brain?.api_key_secret;
    if (secretName && agent.brain?.base_url) {
      const value = this.secrets(agent.workspace_id, secretName);
      if (value === undefined) {
        throw new ApiError(
          'external_api_error',
          `The agent's brain.api_key_secret names the secret ${secretName}, which this workspace does not have. Set it with: svc secrets set ${secretName} <key>`,
        );
      }
      return value;
    }
    return baseUrl === daemonBaseUrl ? this.settings.apiKey : undefined;
  }
}

/**
 * The chat completions body the openai brain sends for an input (the replay brain builds the
 * same one to find its recorded answer), and the action to fall back on.
 */
export function chatRequest(
  { agent, input, context, passages }: BrainInput,
  model: string,
): {
  body: { model: string; temperature: number; messages: { role: string; content: string }[] };
  fallbackAction: string;
} {
  const fallback = classify(input, agent.type, agent.capabilities);
  const system = [
    `You are ${agent.name}, a ${agent.type} agent.`,
    agent.personality.tone ? `Tone: ${agent.personality.tone}.` : '',
    agent.personality.response_length
      ? `Response length: ${agent.personality.response_length}.`
      : '',
    'Answer ONLY with a JSON object: {"action": "<snake_case action>", "output": "<your reply>", "confidence": <0..1>}.',
    `Suggested action: ${fallback.action}.`,
    passages.length
      ? `Knowledge you may quote:\n${passages.map((p) => `- ${p.heading ? `${p.heading}: ` : ''}${p.text}`).join('\n')}`
      : '',
  ]
    .filter(Boolean)
    .join('\n');
  return {
    body: {
      model,
      temperature: 0,
      messages: [
        { role: 'system', content: system },
        {
          role: 'user',
          content: Object.keys(context).length
            ? `${input}\n\nContext: ${JSON.stringify(context)}`
            : input,
        },
      ],
    },
    fallbackAction: fallback.action,
  };
}

/**
 * The proposal in a chat completions answer (`who` names the model in errors). An action that
 * is not snake_case, or whose capability is false, gives way to `fallbackAction`; an action
 * asked for (`asked`, a workflow step's) is the answer's action whatever the model proposed.
 * The request is not changed by it (the step's action is in the context the model reads), so
 * cassettes recorded before still replay.
 */
export function readAnswer(
  text: string,
  who: string,
  fallbackAction: string,
  capabilities: Record<string, boolean>,
  asked?: string,
): BrainResult {
  let body: ChatResponse | null;
  // Bounded as REST bodies are: an answer nested thousands deep would overflow the stack of
  // whatever walks it later (recording it in a cassette).
  if (exceedsDepth(text)) {
    throw new ApiError(
      'external_api_error',
      `${who} answered JSON nested more than ${MAX_JSON_DEPTH} levels deep.`,
    );
  }
  try {
    body = JSON.parse(text) as ChatResponse | null;
  } catch {
    throw new ApiError('external_api_error', `${who} did not answer JSON.`);
  }
  // Whatever JSON came back (null, an object as content) is read without trusting its shape.
  const raw: unknown = body?.choices?.[0]?.message?.content;
  const content = typeof raw === 'string' ? raw.trim() : '';
  if (!content)
    throw new ApiError('external_api_error', `${who} answered without content.`, { status: 502 });
  const answer = parseAnswer(content, fallbackAction, capabilities);
  return asked === undefined ? answer : { ...answer, action: asked };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function parseAnswer(
  content: string,
  fallbackAction: string,
  capabilities: Record<string, boolean>,
): BrainResult {
  const json = content.replace(/^```(?:json)?\s*|\s*```$/g, '');
  try {
    const parsed = JSON.parse(json) as { action?: unknown; output?: unknown; confidence?: unknown };
    if (typeof parsed.output === 'string') {
      const confidence =
        typeof parsed.confidence === 'number' ? Math.min(1, Math.max(0, parsed.confidence)) : 0.8;
      const action =
        typeof parsed.action === 'string' &&
        /^[a-z0-9_]{1,100}$/.test(parsed.action) &&
        capabilities[parsed.action] !== false
          ? parsed.action
          : fallbackAction;
      return { action, output: parsed.output, confidence };
    }
  } catch {
    // Not JSON: take the text as the answer.
  }
  return { action: fallbackAction, output: content, confidence: 0.7 };
}
