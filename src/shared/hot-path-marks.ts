/**
 * Named points on a message's way to its model request and from the model's last chunk to the final edit, published on the diagnostics channel `sandpiper:hot-path`
 * (`npm run bench:discord -- --trace` subscribes in both benchmarked bots). Without a subscriber a mark is one
 * property read: nothing is published.
 */
import { channel } from 'node:diagnostics_channel';

export type HotPathPoint = 'inbound' | 'thread-opened' | 'routed' | 'handed-over' | 'request-build' | 'model-call' | 'text-end' | 'stream-end' | 'segment-end' | 'turn-end';

const marks = channel('sandpiper:hot-path');

export function markHotPath(point: HotPathPoint): void {
  if (marks.hasSubscribers) marks.publish(point);
}
