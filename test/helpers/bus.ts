// Transport tests publish made-up payloads: the bus is typed by the wire schemas, and what these tests check (order,
// recovery, back-pressure) does not depend on the items' shape.
import type { EventBus } from '../../src/events.js';

export const emitAny = (bus: EventBus, event: string, ...args: unknown[]): boolean => (bus.emit as (e: string, ...a: unknown[]) => boolean)(event, ...args);
