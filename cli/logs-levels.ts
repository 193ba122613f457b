// The daemon log's levels (pino's labels), lowest first: what svc logs --level takes. A module
// of its own so that the command's declaration does not load the log reader.
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
