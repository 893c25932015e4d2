import type { AuditService } from '../audit/audit.service.ts';
import type { AuthService } from '../auth/auth.service.ts';
import type { UsersService } from '../auth/users.service.ts';
import type { BackupsModule } from '../backups/backups-module.ts';
import type { CatalogueService } from '../catalogue/catalogue.service.ts';
import type { ContainersService } from '../containers/containers.service.ts';
import type { DoctorService } from '../doctor/doctor.service.ts';
import type { EngineCheck } from '../engine/engine-check.ts';
import type { EngineRestartService } from '../host/engine-restart.ts';
import type { HostService } from '../host/host.service.ts';
import type { JobsService } from '../jobs/jobs.service.ts';
import type { NetworksService } from '../networks/networks.service.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import type { PathMoveService } from '../paths/path-move.ts';
import type { SelfUpdateService } from '../self-update/self-update.service.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import type { WizardService } from '../settings/wizard.service.ts';
import type { StacksService } from '../stacks/stacks.service.ts';
import type { ImageTagLookup } from '../updates/image-tags.ts';
import type { UpdatesService } from '../updates/updates.service.ts';

/** Everything the routes may call; built once in main.ts. */
export interface Services {
  auth: AuthService;
  catalogue: CatalogueService;
  stacks: StacksService;
  containers: ContainersService;
  jobs: JobsService;
  engineCheck: EngineCheck;
  engineRestart: EngineRestartService;
  users: UsersService;
  audit: AuditService;
  settings: SettingsService;
  wizard: WizardService;
  host: HostService;
  networks: NetworksService;
  notifications: NotificationsService;
  paths: PathMoveService;
  backups: BackupsModule;
  updates: UpdatesService;
  imageTags: ImageTagLookup;
  doctor: DoctorService;
  selfUpdate: SelfUpdateService;
}
