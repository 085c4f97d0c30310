// The read side's async port over a query object that answers on the calling thread (an embedded database): every
// method's answer becomes a promise, sub-objects are wrapped alike, and a thrown error becomes a rejection, so its
// consumers are written once for an embedded database and a database server.
import type { AsyncQueries } from './ports.js';

export function asyncQueries<T extends object>(answersAtOnce: T): AsyncQueries<T> {
  const subObjects = new Map<PropertyKey, unknown>();
  const port = new Proxy<object>(answersAtOnce, {
    get(target, key) {
      // Methods are looked up on each use, so one replaced on the object (a test's spy) is the one called.
      const member: unknown = Reflect.get(target, key);
      if (typeof member === 'function') return async (...args: unknown[]) => Reflect.apply(member, target, args) as unknown;
      if (typeof member !== 'object' || member === null) return member;
      let wrapped = subObjects.get(key);
      if (wrapped === undefined) subObjects.set(key, (wrapped = asyncQueries(member)));
      return wrapped;
    },
  });
  return port as AsyncQueries<T>;
}
