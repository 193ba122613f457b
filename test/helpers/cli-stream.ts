// A long-running CLI command (`svc events tail`, `svc webhooks tail`, `svc listen`) as a child
// process: the JSON lines it prints are collected as they come, and waits wake on each of them.
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT, SVC_BIN } from './daemon.js';
import { svcEnv } from './env.js';
import { reapChild } from './reaper.js';
import { Wakeup } from './waiting.js';

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export class CliStream {
  readonly lines: Record<string, any>[] = [];
  readonly child: ChildProcess;
  stderr = '';
  /** stdout lines that were not JSON. */
  stdoutNoise = '';
  readonly exited: Promise<Exit>;
  private readonly news = new Wakeup();

  /** `svc <args>` with the environment `env` (the daemon's), minus the variables in `unsetEnv`. */
  constructor(args: string[], env: NodeJS.ProcessEnv, options: { unsetEnv?: string[] } = {}) {
    const all = svcEnv({ NO_COLOR: '1', CI: 'true', ...env });
    for (const name of options.unsetEnv ?? []) delete all[name];
    this.child = spawn(process.execPath, [SVC_BIN, ...args], {
      cwd: ROOT,
      env: all,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    reapChild(this.child);
    let partial = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      for (const part of parts.filter(Boolean)) {
        try {
          this.lines.push(JSON.parse(part));
        } catch {
          this.stdoutNoise += part + '\n';
        }
      }
      this.news.wake();
    });
    this.child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
      this.news.wake();
    });
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code, signal) => {
        resolve({ code, signal });
        this.news.wake();
      }),
    );
  }

  /** Resolves true once `check` holds on the lines so far, false after `timeoutMs`. */
  waitFor(check: (lines: Record<string, any>[]) => boolean, timeoutMs: number): Promise<boolean> {
    return this.news.until(() => check(this.lines), timeoutMs);
  }

  /** SIGINT, as Ctrl-C does; its exit, or 'timeout' when it has not exited within 5 s. */
  async stop(): Promise<Exit | 'timeout'> {
    if (this.running()) this.child.kill('SIGINT');
    const stopped = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000).unref()),
    ]);
    return stopped ? this.exited : 'timeout';
  }

  kill(): void {
    if (this.running()) this.child.kill('SIGKILL');
  }

  private running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
}
