import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LagTracker } from './projectorLag.ts';

test('a consumer poll overtaken by an applied message is ignored (it would report a stale lag)', () => {
  const tracker = new LagTracker();
  const token = tracker.pollStarted(); // the poll asks the server while 6 events wait...
  tracker.delivered(1_000);
  tracker.applied(0); // ...and meanwhile the last of them is applied here
  tracker.polled(6, 1_000, token); // the answer arrives late
  assert.deepEqual(tracker.lag(2_000), { events: 0, ms: 0 });
  tracker.polled(3, 1_500, tracker.pollStarted()); // a fresh poll counts (other processes of the set)
  assert.deepEqual(tracker.lag(2_000), { events: 3, ms: 500 });
});
