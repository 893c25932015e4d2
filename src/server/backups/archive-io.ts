/** The archive format behind the backup service's ArchiveIO (gzip or zstd as BACKUP_COMPRESSION says, the default limits). */
import { checkCompressed, DEFAULT_LIMITS, extractArchive, verifyArchive, writeArchive } from './archive.ts';
import type { ArchiveIO } from './backups.service.ts';

/** The read-back right after writing: the whole file through its compressor's own check. */
async function checkWritten(path: string): Promise<{ ok: boolean; problems: string[] }> {
  const problem = await checkCompressed(path);
  return { ok: problem === null, problems: problem === null ? [] : [problem] };
}

export const archiveIO: ArchiveIO = {
  write: (o) =>
    writeArchive({
      dest: o.dest,
      branches: { stack: o.stackDir, ...(o.appdataDir !== null ? { appdata: o.appdataDir } : {}), dumps: o.dumps },
      meta: o.meta,
      compression: o.compression,
      onSkip: o.onSkip,
    }),
  verify: (path, how) => (how === 'written' ? checkWritten(path) : verifyArchive(path)),
  extract: async (path, target, only) => {
    await extractArchive(path, target, DEFAULT_LIMITS, only);
  },
};
