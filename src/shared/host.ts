/** Shapes of the host checks: the port check and the device list. */
import { z } from 'zod';

export const MIN_PORT = 1;
export const MAX_PORT = 65535;

/** `?port=N`: digits only, so `0x50`, `1e2` and ` 80` are refused instead of read as numbers. */
export const PortQuery = z.object({
  port: z
    .string()
    .regex(/^[0-9]{1,5}$/, `a whole number from ${MIN_PORT} to ${MAX_PORT}`)
    .transform(Number)
    .pipe(z.number().int().min(MIN_PORT).max(MAX_PORT)),
});

/** GET /api/ports/check?port=N. When `host_inspected` is false, `free` is an assumption and `note` says so. */
export const PortCheck = z.object({
  port: z.number().int(),
  free: z.boolean(),
  held_by: z.string().nullable(),
  alternative: z.number().int().nullable(),
  host_inspected: z.boolean(),
  note: z.string().optional(),
  /** The probe image (SVC_PROBE_IMAGE) the check needs and the engine does not have; `docker pull` it. */
  missing_image: z.string().optional(),
});
export type PortCheckT = z.infer<typeof PortCheck>;

export const DEVICE_KINDS = ['serial', 'video'] as const;
/** One device node; by-id links are `stable` with label 'vast' and `target` the node they point to. */
export const Device = z.object({
  path: z.string(),
  kind: z.enum(DEVICE_KINDS),
  stable: z.boolean(),
  label: z.literal('vast').nullable(),
  target: z.string().nullable(),
});
export type DeviceT = z.infer<typeof Device>;
export const DeviceList = z.array(Device);
