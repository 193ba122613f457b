// A tiny OpenAI-compatible chat completions server for end-to-end tests, on 127.0.0.1 (port 0).
// It answers POST /v1/chat/completions with a configurable assistant message (a JSON object or
// plain text), or an HTTP error, or never (hangs); every request is recorded.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { closeServer, listenLocally } from './local-server.js';

export interface ChatMessage {
  role: string;
  content: string;
}

export interface ChatRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The request body parsed as JSON (undefined if it was not JSON). */
  body: { model?: string; messages?: ChatMessage[]; [key: string]: unknown } | undefined;
  raw: string;
}

type Mode =
  | { kind: 'content'; content: string }
  | { kind: 'status'; status: number; body: unknown }
  | { kind: 'hang' };

export interface FakeOpenAi {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  /** origin + /v1: what an OpenAI client takes as its base URL. */
  readonly baseUrl: string;
  /** Every request so far, in arrival order. */
  readonly requests: ChatRequest[];
  /** The assistant message content becomes JSON.stringify(value). */
  answerJson(value: unknown): void;
  /** The assistant message content is this text. */
  answerText(text: string): void;
  /** Answers every request with this HTTP status (and an OpenAI-style error body). */
  answerStatus(status: number, body?: unknown): void;
  /** Never answers (until closed). */
  hang(): void;
  /** The user messages received so far. */
  userMessages(): string[];
  close(): Promise<void>;
}

export async function startFakeOpenAi(owner?: {
  teardown(fn: () => Promise<void> | void): void;
}): Promise<FakeOpenAi> {
  const requests: ChatRequest[] = [];
  const hanging = new Set<ServerResponse>();
  let mode: Mode = { kind: 'content', content: 'Hello from the fake model.' };
  let counter = 0;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: ChatRequest['body'];
      try {
        body = JSON.parse(raw) as ChatRequest['body'];
      } catch {
        body = undefined;
      }
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        raw,
      });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        send(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
        return;
      }
      if (mode.kind === 'hang') {
        hanging.add(res);
        return;
      }
      if (mode.kind === 'status') {
        send(res, mode.status, mode.body);
        return;
      }
      counter += 1;
      send(res, 200, {
        id: `chatcmpl-${counter}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body?.model ?? 'unknown',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: mode.content },
            finish_reason: 'stop',
          },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    });
  });
  const origin = await listenLocally(server);
  let closed: Promise<void> | undefined;

  const fake: FakeOpenAi = {
    origin,
    baseUrl: `${origin}/v1`,
    requests,
    answerJson(value) {
      mode = { kind: 'content', content: JSON.stringify(value) };
    },
    answerText(text) {
      mode = { kind: 'content', content: text };
    },
    answerStatus(status, body) {
      mode = {
        kind: 'status',
        status,
        body: body ?? { error: { message: 'The fake model failed.', type: 'server_error' } },
      };
    },
    hang() {
      mode = { kind: 'hang' };
    },
    userMessages() {
      return requests.flatMap((request) =>
        (request.body?.messages ?? []).filter((m) => m.role === 'user').map((m) => m.content),
      );
    },
    close() {
      closed ??= (() => {
        for (const res of hanging) res.destroy();
        hanging.clear();
        return closeServer(server);
      })();
      return closed;
    },
  };
  owner?.teardown(() => fake.close());
  return fake;
}
