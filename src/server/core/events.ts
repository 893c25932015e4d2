import type { Logger } from './logger.ts';

/** Who did something, captured before any background work starts. */
export interface Actor {
  user: string;
  role: 'admin' | 'operator' | 'viewer';
  ip: string;
}

/** Past-tense domain events; audit and notifications subscribe. */
export interface DomainEvent {
  type: string;
  actor: Actor | null;
  source: string;
  target?: string;
  status: 'ok' | 'failed';
  detail?: Record<string, string | number | boolean>;
}

export type Subscriber = (event: DomainEvent) => void;

export interface EventBus {
  emit(event: DomainEvent): void;
  subscribe(fn: Subscriber): () => void;
}

/** A failing subscriber is logged and never breaks the operation that emitted. */
export function createEventBus(logger: Logger): EventBus {
  const subs = new Set<Subscriber>();
  return {
    emit(event) {
      for (const fn of subs) {
        try {
          fn(event);
        } catch (err) {
          logger.error({ err, event: event.type }, 'event subscriber failed');
        }
      }
    },
    subscribe(fn) {
      subs.add(fn);
      return () => subs.delete(fn);
    },
  };
}
