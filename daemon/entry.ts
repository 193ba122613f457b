// The process `svc daemon start` spawns: settings come in SVC_* variables, logs go to the data
// dir, and readiness (or the reason it could not start) goes back to the CLI over IPC.
import { dataDirFiles } from '../shared/paths.js';
import { resolveConfig } from './config.js';
import { restrictNewFiles } from './data-dir.js';
import { createLogger } from './logger.js';
import { runDaemon } from './main.js';

// Before the logger opens logs/daemon.log: files the daemon creates are private (0600).
restrictNewFiles();
const config = resolveConfig({});
const logger = createLogger(config.logLevel, dataDirFiles(config.dataDir).log);
const code = await runDaemon(config, logger, (message) => {
  if (process.send) process.send(message);
});
if (process.connected) process.disconnect();
process.exitCode = code;
