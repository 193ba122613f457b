// The error the API client throws for an error answer, in a module of its own so that code
// which only recognises it (the CLI's error report, on every command) does not load ky.

export interface ApiErrorBody {
  error?: {
    code?: string;
    message?: string;
    param?: string;
    request_id?: string;
    [extra: string]: unknown;
  };
}

export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: ApiErrorBody | undefined,
  ) {
    super(message);
  }
}
