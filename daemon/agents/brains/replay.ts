// The replay brain: answers from a cassette recorded from a real model (svc agents record),
// offline and deterministically. It builds the very request the openai brain would send, and
// answers what the model answered to it. A request the cassette does not hold fails the
// execution with an error naming the agent, the request's key and the cassette (never a
// guess); with record_missing, it asks the real endpoint once and appends the answer.
import { ApiError } from '../../domain/errors.js';
import type { Brain, BrainInput, BrainResult } from './brain.js';
import { normalizeRequest, requestKey, type Cassettes } from './cassette.js';
import { chatRequest, readAnswer, type OpenAiBrain, type OpenAiSettings } from './openai.js';

export interface ReplaySettings {
  /** The daemon's cassette (SVC_AGENT_BRAIN_CASSETTE), for agents without their own. */
  cassette?: string | undefined;
  /** SVC_AGENT_BRAIN_RECORD_MISSING=1: ask the real endpoint for what is missing. */
  recordMissing: boolean;
}

export class ReplayBrain implements Brain {
  readonly name = 'replay' as const;

  constructor(
    private readonly settings: ReplaySettings,
    private readonly openai: OpenAiSettings,
    private readonly cassettes: Cassettes,
    private readonly live: OpenAiBrain,
  ) {}

  /** Answers at once from a loaded cassette (or fails: missing); see answersLocally. */
  thinkLocally(input: BrainInput): BrainResult {
    const found = this.answerFrom(input);
    if (found.answer) return found.answer;
    throw this.missing(input, found.key, found.cassette);
  }

  async think(input: BrainInput): Promise<BrainResult> {
    const cassette = this.cassetteOf(input);
    await this.cassettes.load(cassette);
    let found = this.answerFrom(input);
    // Team mode: another daemon may have recorded it since this one loaded the cassette.
    if (!found.answer && (await this.cassettes.refresh(cassette))) found = this.answerFrom(input);
    if (found.answer) return found.answer;
    if (!this.recordMissing(input)) throw this.missing(input, found.key, found.cassette);
    return this.live.ask(input, found.cassette);
  }

  /**
   * Whether an input is answered without the network (the thinker runs such steps inline): a
   * cassette not read yet is read by think(), off the event loop, the first time. In team mode
   * an input the loaded copy lacks goes to think() too, which reads the stored one again.
   */
  answersLocally(input: BrainInput): boolean {
    if (!this.cassettes.isLoaded(this.cassetteOf(input))) return false;
    const found = this.answerFrom(input);
    if (found.answer !== undefined) return true;
    return !this.recordMissing(input) && this.cassettes.place === 'folder';
  }

  /** The answer the loaded cassette holds for this input, if any. */
  private answerFrom(input: BrainInput): { key: string; cassette: string; answer?: BrainResult } {
    const cassette = this.cassetteOf(input);
    const model = input.agent.brain?.model ?? this.openai.model;
    const { body, fallbackAction } = chatRequest(input, model);
    const key = requestKey(normalizeRequest(body));
    const found = this.cassettes.findLoaded(cassette, key);
    if (!found) return { key, cassette };
    const { status, body: answer } = found.interaction.response;
    const entry = `cassette ${cassette}, interactions[${found.index}]`;
    if (status < 200 || status >= 300) {
      throw new ApiError(
        'external_api_error',
        `The recorded model answered HTTP ${status} (${entry}).`,
      );
    }
    const text = typeof answer === 'string' ? answer : JSON.stringify(answer);
    return {
      key,
      cassette,
      answer: readAnswer(
        text,
        `The recorded model (${entry})`,
        fallbackAction,
        input.agent.capabilities,
        input.action,
      ),
    };
  }

  private cassetteOf(input: BrainInput): string {
    const cassette = input.agent.brain?.cassette ?? this.settings.cassette;
    if (!cassette) {
      throw new ApiError(
        'external_api_error',
        `Agent ${input.agent.id} uses the replay brain without a cassette: set brain.cassette on the agent, or SVC_AGENT_BRAIN_CASSETTE for the daemon.`,
      );
    }
    return cassette;
  }

  private recordMissing(input: BrainInput): boolean {
    return input.agent.brain?.provider === 'replay'
      ? (input.agent.brain.record_missing ?? this.settings.recordMissing)
      : this.settings.recordMissing;
  }

  private missing(input: BrainInput, key: string, cassette: string): ApiError {
    return new ApiError(
      'external_api_error',
      `Agent ${input.agent.id}: the cassette ${cassette} has no recorded answer for request ${key}. Record it against a real endpoint (svc agents record --cassette ${cassette}, or brain.record_missing: true with a base_url), then replay.`,
      { extras: { agent_id: input.agent.id, request_key: key, cassette } },
    );
  }
}
