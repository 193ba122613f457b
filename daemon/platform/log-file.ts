// The daemon's log file (logs/daemon.log). A write that fails (a full disk, a quota, a file size
// limit, an I/O error) never stops the daemon: the batch that could not be written is dropped
// and its lines counted, and the first write that succeeds again starts with one line saying
// how many were lost, since when and why. Logs are the one thing the daemon writes that it may
// lose: requests, runs and deliveries live in the database.
//
// Not sonic-boom (pino.destination), which the stdout copy still uses: on a failed write it
// emits 'error' (fatal without a listener), keeps the failed batch to write again with every
// line after it in memory, and its flushSync (at exit) retries a full disk forever.
import { closeSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';

const NEWLINE = 0x0a;

export class LogFile {
  private readonly fd: number;
  /** Lines dropped since the last successful write, when the first was, and the last cause. */
  private dropped = 0;
  private droppedSince = '';
  private cause = '';
  /** A piece of a line is left in the file (see append): the next write starts a new line. */
  private midLine = false;
  private closed = false;

  /** Opens (creates, mode 0600) the file for appending; throws if that fails (start-up). */
  constructor(
    file: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.fd = openSync(file, 'a', 0o600);
  }

  /** Lines dropped and not yet reported in the file. */
  get droppedLines(): number {
    return this.dropped;
  }

  /** Appends a batch of whole lines; what cannot be written is dropped and counted. */
  write(batch: string): void {
    if (this.closed) return;
    const data = Buffer.from(batch);
    if (this.dropped > 0) {
      const report = Buffer.from(this.report());
      if (this.append(report) < report.length) {
        this.drop(data, 0);
        return;
      }
      this.dropped = 0;
    }
    const written = this.append(data);
    if (written < data.length) this.drop(data, written);
  }

  /** Writes are synchronous: nothing is ever held here. */
  flush(done?: (error?: Error) => void): void {
    done?.();
  }

  flushSync(): void {}

  /** Closes the file (a test sandbox's logger, released at its stop); writes after it are dropped. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  /**
   * Writes as much of data as the file takes, in whole lines; answers how many bytes that was.
   * A write cut short in a line (the disk filled meanwhile) has that piece cut off the file again.
   */
  private append(data: Buffer): number {
    let offset = 0;
    try {
      if (this.midLine) {
        writeSync(this.fd, '\n');
        this.midLine = false;
      }
      while (offset < data.length) offset += writeSync(this.fd, data, offset);
      return offset;
    } catch (error) {
      this.cause = error instanceof Error ? error.message : String(error);
    }
    const whole = offset === 0 ? 0 : data.lastIndexOf(NEWLINE, offset - 1) + 1;
    if (whole < offset) {
      try {
        ftruncateSync(this.fd, fstatSync(this.fd).size - (offset - whole));
      } catch {
        // Left in the file: the next line written starts on a line of its own.
        this.midLine = true;
      }
    }
    return whole;
  }

  /** Counts the lines of data whose end was not written (from byte `written` on). */
  private drop(data: Buffer, written: number): void {
    let lines = 0;
    for (let at = data.indexOf(NEWLINE, written); at !== -1; at = data.indexOf(NEWLINE, at + 1))
      lines += 1;
    if (lines === 0) return;
    if (this.dropped === 0) this.droppedSince = this.now().toISOString();
    this.dropped += lines;
  }

  /** The line written first once the file takes lines again, in the logger's own format. */
  private report(): string {
    return (
      JSON.stringify({
        level: 'warn',
        time: this.now().toISOString(),
        pid: process.pid,
        dropped_lines: this.dropped,
        first_dropped_at: this.droppedSince,
        err: this.cause,
        msg: `${this.dropped} log lines dropped: the log file could not be written (free space where the data dir is)`,
      }) + '\n'
    );
  }
}
