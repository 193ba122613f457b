// Where the daemon runs: a sandbox (the default: test keys, http:// and private addresses
// allowed, the clock can be moved) or production (live keys, https:// only, real time).
export type Environment = 'sandbox' | 'production';
