/** The archive format behind the backup service's ArchiveIO (gzip or zstd as BACKUP_COMPRESSION says, the default limits). */
import { DEFAULT_LIMITS, extractArchive, verifyArchive, writeArchive } from './archive.ts';
import type { ArchiveIO } from './backups.service.ts';

export const archiveIO: ArchiveIO = {
  write: (o) =>
    writeArchive({
      dest: o.dest,
      branches: { stack: o.stackDir, ...(o.appdataDir !== null ? { appdata: o.appdataDir } : {}), dumps: o.dumps },
      meta: o.meta,
      compression: o.compression,
      onSkip: o.onSkip,
    }),
  verify: (path) => verifyArchive(path),
  extract: async (path, target, only) => {
    await extractArchive(path, target, DEFAULT_LIMITS, only);
  },
};
