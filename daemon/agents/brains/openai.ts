// A brain backed by any OpenAI-compatible chat completions endpoint (OpenAI, a local model
// server...). It asks for a JSON answer {action, output, confidence}; a plain-text answer is
// accepted with the deterministic classifier's action. An endpoint that cannot be reached or
// errors is a 502 external_api_error.
//
// Keys: the daemon's own key (SVC_OPENAI_API_KEY) is sent only to the daemon's configured base
// URL. An agent with its own brain.base_url sends the value of the workspace secret it names in
// brain.api_key_secret, or no key at all, so that an `agents:write` key cannot point an agent
// at its own server and collect the daemon's key.
import { ApiError } from '../../domain/errors.js';
import type { OutboundHttp } from '../../outbound/http.js';
import type { Brain, BrainInput, BrainResult } from './brain.js';
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

  constructor(
    private readonly settings: OpenAiSettings,
    private readonly outbound: OutboundHttp,
    /** Workspace secrets (svc secrets set), read for an agent's brain.api_key_secret. */
    private readonly secrets: SecretLookup,
  ) {}

  async think({ agent, input, context, passages, timeoutMs }: BrainInput): Promise<BrainResult> {
    const daemonBaseUrl = trimSlash(this.settings.baseUrl);
    const baseUrl = agent.brain?.base_url ? trimSlash(agent.brain.base_url) : daemonBaseUrl;
    const apiKey = this.keyFor(agent, baseUrl, daemonBaseUrl);
    const model = agent.brain?.model ?? this.settings.model;
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
        ? `Knowledge you may quote:\n${passages.map((p) => `- ${p.text}`).join('\n')}`
        : '',
    ]
      .filter(Boolean)
      .join('\n');
    const result = await this.outbound.request({
      url: `${baseUrl}/chat/completions`,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      },
      body: JSON.stringify({
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
      }),
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
    let body: ChatResponse;
    try {
      body = JSON.parse(result.body) as ChatResponse;
    } catch {
      throw new ApiError('external_api_error', `The model at ${baseUrl} did not answer JSON.`);
    }
    const content = body.choices?.[0]?.message?.content?.trim();
    if (!content)
      throw new ApiError(
        'external_api_error',
        `The model at ${baseUrl} answered without content.`,
        { status: 502 },
      );
    return parseAnswer(content, fallback.action);
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

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function parseAnswer(content: string, fallbackAction: string): BrainResult {
  const json = content.replace(/^```(?:json)?\s*|\s*```$/g, '');
  try {
    const parsed = JSON.parse(json) as { action?: unknown; output?: unknown; confidence?: unknown };
    if (typeof parsed.output === 'string') {
      const confidence =
        typeof parsed.confidence === 'number' ? Math.min(1, Math.max(0, parsed.confidence)) : 0.8;
      const action =
        typeof parsed.action === 'string' && /^[a-z0-9_]{1,100}$/.test(parsed.action)
          ? parsed.action
          : fallbackAction;
      return { action, output: parsed.output, confidence };
    }
  } catch {
    // Not JSON: take the text as the answer.
  }
  return { action: fallbackAction, output: content, confidence: 0.7 };
}
