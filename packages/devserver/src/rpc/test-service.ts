/**
 * temporal.api.testservice.v1.TestService, which @temporalio/testing's time-skipping environment calls:
 * lock/unlock automatic time skipping, sleep in server time, read the server's clock.
 */
import type proto from '@temporalio/proto';
import { durationToMs, msToTimestamp, timestampToMs } from '../proto.js';
import type { EngineContext } from '../engine/context.js';
import { sleepUntil } from '../engine/time-skipping.js';
import type { RequestOf, ServiceHandlers } from './grpc-server.js';

type V1 = typeof proto.temporal.api.testservice.v1;
type Req<K extends keyof V1> = RequestOf<V1[K]>;

export function testServiceHandlers(ctx: EngineContext): ServiceHandlers {
  const unlock = () => {
    ctx.timeSkippingLocks = Math.max(0, ctx.timeSkippingLocks - 1);
    ctx.clock.requestSkip();
  };
  return {
    LockTimeSkipping: () => {
      ctx.timeSkippingLocks++;
      return {};
    },
    UnlockTimeSkipping: () => (unlock(), {}),
    GetCurrentTime: () => ({ time: msToTimestamp(ctx.clock.now()) }),
    Sleep: async (req: Req<'SleepRequest'>) => (
      await sleepUntil(ctx, ctx.clock.now() + durationToMs(req.duration)),
      {}
    ),
    SleepUntil: async (req: Req<'SleepUntilRequest'>) => (await sleepUntil(ctx, timestampToMs(req.timestamp)), {}),
    // As in the Java test server: unlocked for the duration of the sleep, locked again by a timer at its end.
    // Being a timer, the end is a deadline like any other: automatic skipping stops there and goes no further.
    UnlockTimeSkippingWithSleep: (req: Req<'SleepRequest'>) =>
      new Promise<object>((resolve) => {
        ctx.clock.after(durationToMs(req.duration), () => {
          ctx.timeSkippingLocks++;
          resolve({});
        });
        unlock();
      }),
  };
}
