import { CancellationScope, isCancellation } from '@temporalio/workflow';

/**
 * Makes a read (a local activity: the policy, the approvers, the lookup, the validation) again when it comes back
 * cancelled though nothing cancelled the scope it runs in. The SDK resolves a local activity as cancelled when its
 * run is evicted from the worker's cache while the activity waits to be retried: bench:scale, with a small cache and
 * the API dropping a connection, ended an order CANCELLED by "temporal" that way, with no cancel asked for. A read
 * changes nothing, so making it again is safe; a real cancel (the scope is cancelled) still ends the order.
 */
export async function retryAbandoned<T>(read: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (!isCancellation(error) || CancellationScope.current().consideredCancelled) throw error;
    }
  }
}

/** The same activities, every call made through `retryAbandoned`. */
export function retryingAbandoned<A extends object>(activities: A): A {
  return new Proxy(activities, {
    get(target, name) {
      const call = Reflect.get(target, name) as (...args: unknown[]) => Promise<unknown>;
      return (...args: unknown[]) => retryAbandoned(() => call(...args));
    },
  });
}
