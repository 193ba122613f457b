// Cassettes as files of the daemon's cassette folder (SVC_CASSETTE_DIR, default
// <data dir>/cassettes): how a one-daemon (SQLite) sandbox keeps them, so that they travel
// between people as files; in team mode, where a file of the folder is taken into the store.
// Each is one JSON document, written atomically with lowdb. The check that a name stays inside
// the folder is made again on real paths (realpath) before reading and writing, so a symbolic
// link inside the folder cannot lead out of it either. A file is read with fs.promises after a
// stat bounds its size, so a large one never blocks the daemon.
import { mkdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative } from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import { ApiError } from '../../domain/errors.js';
import {
  cassetteError,
  emptyCassette,
  MAX_CASSETTE_BYTES,
  tooLarge,
  withInteraction,
  type CassetteData,
  type CassetteName,
  type Interaction,
} from './cassette-format.js';

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/** Whether `path` is `root` or inside it. */
function isInside(root: string, path: string): boolean {
  const inside = relative(root, path);
  return inside === '' || (!inside.startsWith('..') && !isAbsolute(inside));
}

export class CassetteFiles {
  readonly place = 'folder' as const;
  private readonly writers = new Map<string, Low<CassetteData>>();

  constructor(readonly dir: string) {}

  /** The file's text, or undefined when there is no such file. */
  async read(id: CassetteName): Promise<string | undefined> {
    const real = await this.checkRealPath(id);
    if (real === undefined) return undefined;
    try {
      const info = await stat(real);
      if (!info.isFile()) throw cassetteError(id.name, 'is not a file');
      if (info.size > MAX_CASSETTE_BYTES) throw tooLarge(id.name, info.size, 'folder');
      return await readFile(real, 'utf8');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /**
   * Adds the interaction to `current` (what this daemon read of the file: it is the file's one
   * writer) and writes the file.
   */
  async record(
    id: CassetteName,
    current: CassetteData,
    interaction: Interaction,
  ): Promise<CassetteData> {
    return this.replace(id, withInteraction(current, interaction));
  }

  /** Writes `data` as the cassette's file, replacing what it held (svc agents cassette load). */
  async replace(id: CassetteName, data: CassetteData): Promise<CassetteData> {
    let writer = this.writers.get(id.file);
    if (!writer) {
      // The folders are made only where the real path stays inside the cassette folder.
      await mkdir(this.dir, { recursive: true });
      await this.checkRealPath(id);
      await mkdir(dirname(id.file), { recursive: true });
      await this.checkRealPath(id);
      writer = new Low<CassetteData>(new JSONFile<CassetteData>(id.file), emptyCassette());
      this.writers.set(id.file, writer);
    }
    writer.data = data;
    await writer.write();
    return data;
  }

  /**
   * Refuses a cassette whose real path (symbolic links resolved) leaves the real cassette
   * folder. For a file not there yet, its nearest existing folder is checked. Returns the
   * real path of the file, or undefined when it does not exist.
   */
  private async checkRealPath(id: CassetteName): Promise<string | undefined> {
    let root: string;
    try {
      root = await realpath(this.dir);
    } catch (error) {
      if (isMissing(error)) return undefined; // No folder: no cassette in it yet.
      throw error;
    }
    let probe = id.file;
    let real: string | undefined;
    for (;;) {
      try {
        real = await realpath(probe);
        break;
      } catch (error) {
        if (!isMissing(error) || dirname(probe) === probe) throw error;
        probe = dirname(probe);
      }
    }
    if (!isInside(root, real)) {
      throw new ApiError(
        'invalid_parameter',
        `Cassette '${id.name}': the file leads out of the cassette folder through a symbolic link; cassettes are read and written only inside the cassette folder.`,
        { param: id.param },
      );
    }
    return probe === id.file ? real : undefined;
  }
}
