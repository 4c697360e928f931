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

test("a fresh consumer poll replaces the pending count the last message carried (the server's estimate)", () => {
  const tracker = new LagTracker();
  tracker.delivered(1_000);
  tracker.applied(4); // nats-server 2.9 can say 4 more follow the last message of the stream...
  assert.deepEqual(tracker.lag(2_000), { events: 4, ms: 0 });
  assert.equal(tracker.polled(0, undefined, tracker.pollStarted()), true); // ...a consumer poll says none
  assert.deepEqual(tracker.lag(2_000), { events: 0, ms: 0 });
  const stale = tracker.pollStarted();
  tracker.delivered(1_500);
  tracker.applied(0);
  assert.equal(tracker.polled(2, 1_500, stale), false, 'an overtaken poll is not recorded');
});
