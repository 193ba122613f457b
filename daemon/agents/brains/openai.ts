// A brain backed by any OpenAI-compatible chat completions endpoint (OpenAI, a local model
// server...). It asks for a JSON answer {action, output, confidence}; a plain-text answer is
// accepted with the deterministic classifier's action. An endpoint that cannot be reached or
// errors is a 502 external_api_error.
import ky, { HTTPError, TimeoutError } from 'ky';
import { ApiError } from '../../domain/errors.js';
import type { Brain, BrainInput, BrainResult } from './brain.js';
import { classify } from './classify.js';

export interface OpenAiSettings {
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
}

interface ChatResponse {
  choices?: { message?: { content?: string } }[];
}

export class OpenAiBrain implements Brain {
  readonly name = 'openai' as const;

  constructor(private readonly settings: OpenAiSettings) {}

  async think({ agent, input, context, passages, timeoutMs }: BrainInput): Promise<BrainResult> {
    const baseUrl = (agent.brain?.base_url ?? this.settings.baseUrl).replace(/\/$/, '');
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
    let body: ChatResponse;
    try {
      body = await ky
        .post(`${baseUrl}/chat/completions`, {
          json: {
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
          headers: this.settings.apiKey ? { authorization: `Bearer ${this.settings.apiKey}` } : {},
          timeout: timeoutMs,
          retry: 0,
        })
        .json<ChatResponse>();
    } catch (error) {
      if (error instanceof TimeoutError) {
        throw new ApiError(
          'execution_timeout',
          `The model endpoint ${baseUrl} did not answer within ${Math.round(timeoutMs / 1000)} s.`,
        );
      }
      throw new ApiError('external_api_error', describeFailure(error, baseUrl));
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

function describeFailure(error: unknown, baseUrl: string): string {
  if (error instanceof HTTPError)
    return `The model endpoint ${baseUrl} answered HTTP ${error.response.status}.`;
  return `The model endpoint ${baseUrl} could not be reached. Check SVC_OPENAI_BASE_URL (or the agent's brain.base_url).`;
}
