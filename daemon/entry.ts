// The process `svc daemon start` spawns: settings come in SVC_* variables, logs go to the data
// dir (and with --foreground to stdout too), and readiness (or the reason it could not start)
// goes back to the CLI over IPC. In the foreground the daemon lives as long as its CLI: when
// the IPC channel closes (the CLI was killed, its terminal closed) it stops as on SIGTERM.
import { FOREGROUND_ARG } from '../shared/daemon-launch.js';
import { dataDirFiles } from '../shared/paths.js';
import { resolveConfig } from './config.js';
import { restrictNewFiles } from './data-dir.js';
import { createLogger } from './logger.js';
import { runDaemon } from './main.js';

const foreground = process.argv.includes(FOREGROUND_ARG);
// Before the logger opens logs/daemon.log: files the daemon creates are private (0600).
restrictNewFiles();
const config = resolveConfig({});
const logger = createLogger(config.logLevel, dataDirFiles(config.dataDir).log, {
  stdout: foreground,
});
const orphaned = () => process.kill(process.pid, 'SIGTERM');
if (foreground) process.once('disconnect', orphaned);
const code = await runDaemon(config, logger, (message) => {
  if (process.send) process.send(message);
});
process.off('disconnect', orphaned);
if (process.connected) process.disconnect();
process.exitCode = code;
