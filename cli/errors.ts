// CLI failures: what happened, how to fix it, and the exit code (1 operation failed, 2 usage).
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
    readonly code = 'cli_error',
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2, 'usage_error');
  }
}
