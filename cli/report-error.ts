// Prints a failure as "what happened / how to fix" on stderr (or one JSON document with --json)
// and returns the exit code.
import { ApiRequestError } from '../shared/api-error.js';
import { CliError } from './errors.js';
import type { WorkspaceInUse } from './context.js';
import { cliMessage } from './hints.js';
import { chalk } from './output.js';

interface TrpcLikeError {
  message: string;
  data?: { svc_code?: string; svc_param?: string; code?: string; httpStatus?: number } | null;
}

export function reportError(error: unknown, json: boolean): number {
  const { code, message, exitCode, details } = describe(error);
  if (json) {
    // The message last: the CLI's (hints in svc commands), not the API body's own.
    process.stdout.write(JSON.stringify({ error: { code, ...details, message } }, null, 2) + '\n');
  } else {
    process.stderr.write(`${chalk.red('Error:')} ${message}\n`);
  }
  return exitCode;
}

/** The error with its message in CLI terms (svc commands, the workspace used): see hints.ts. */
export function withCliHints(error: unknown, workspace: WorkspaceInUse): unknown {
  if (error instanceof ApiRequestError)
    error.message = cliMessage(error.code, error.message, workspace);
  else if (isTrpcError(error) && error.data?.svc_code)
    error.message = cliMessage(error.data.svc_code, error.message, workspace);
  return error;
}

function describe(error: unknown): {
  code: string;
  message: string;
  exitCode: number;
  details: Record<string, unknown>;
} {
  if (error instanceof CliError)
    return {
      code: error.code,
      message: error.message,
      exitCode: error.exitCode,
      details: error.details,
    };
  if (error instanceof ApiRequestError) {
    return {
      code: error.code,
      message: error.message,
      exitCode: 1,
      details: { status: error.status, ...(error.body?.error ?? {}) },
    };
  }
  if (isConnectionError(error)) {
    return {
      code: 'daemon_unreachable',
      message:
        'Cannot reach the svc daemon. Is it running? Check with: svc daemon status (start it with: svc daemon start)',
      exitCode: 1,
      details: {},
    };
  }
  if (isTrpcError(error)) {
    const code =
      error.data?.svc_code ??
      (error.data?.code === 'BAD_REQUEST'
        ? 'invalid_parameter'
        : (error.data?.code ?? 'control_error').toLowerCase());
    const details: Record<string, unknown> = {};
    if (error.data?.httpStatus !== undefined) details.status = error.data.httpStatus;
    if (error.data?.svc_param !== undefined) details.param = error.data.svc_param;
    return { code, message: error.message, exitCode: 1, details };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'cli_error', message, exitCode: 1, details: {} };
}

function isTrpcError(error: unknown): error is TrpcLikeError {
  return error instanceof Error && error.name === 'TRPCClientError';
}

/**
 * Whether the daemon could not be reached. A tRPC error with data is the daemon's own answer,
 * whose message may quote a network error of a call it made (a webhook step's ECONNREFUSED).
 */
function isConnectionError(error: unknown): boolean {
  if (isTrpcError(error) && error.data) return false;
  const text = String((error as { cause?: unknown })?.cause ?? error);
  return /ECONNREFUSED|fetch failed|ECONNRESET/.test(text);
}
