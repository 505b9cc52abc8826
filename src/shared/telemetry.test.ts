import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { createLogger } from './logger.js';
import { metrics, setTelemetrySink, traceFields, withSpan, type TelemetrySink } from './telemetry.js';

class Lines extends Writable {
  lines: Array<Record<string, unknown>> = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    for (const line of chunk.toString().split('\n').filter(Boolean))
      this.lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  }
}

describe('telemetry helpers', () => {
  after(() => {
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it('records nothing and adds no trace id while no SDK is registered', async () => {
    const out = new Lines();
    const logger = createLogger({ format: 'json', destination: out });
    await withSpan('sandpiper.test', {}, async () => logger.info('inside'));
    assert.equal(out.lines[0]?.['trace_id'], undefined);
    assert.deepEqual(traceFields(), {});
    assert.equal(
      await withSpan('sandpiper.test', {}, async (span) => span.isRecording()),
      false,
      'the span records nothing',
    );
    await assert.rejects(
      withSpan('sandpiper.test', {}, async () => Promise.reject(new Error('boom'))),
      /boom/,
      'failures reach the caller',
    );
    const thrown = (): Promise<void> => {
      throw new Error('sync boom');
    };
    await assert.rejects(
      withSpan('sandpiper.test', {}, thrown),
      /sync boom/,
      'a synchronous throw becomes a rejection',
    );
  });

  it('puts the active trace id on log lines, records failures and always ends the span', async () => {
    const exporter = new InMemorySpanExporter();
    new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();
    const out = new Lines();
    const logger = createLogger({ format: 'json', destination: out });
    await withSpan('sandpiper.outer', { 'sandpiper.platform': 'discord' }, async () => {
      logger.info('in outer');
      await assert.rejects(
        withSpan('sandpiper.inner', {}, async () => Promise.reject(new Error('boom'))),
        /boom/,
      );
    });
    logger.info('outside');
    const [inner, outer] = exporter.getFinishedSpans();
    assert.equal(outer?.name, 'sandpiper.outer');
    assert.equal(inner?.parentSpanContext?.spanId, outer?.spanContext().spanId);
    assert.equal(inner?.status.code, 2);
    assert.equal(out.lines[0]?.['trace_id'], outer?.spanContext().traceId);
    assert.equal(out.lines[0]?.['span_id'], outer?.spanContext().spanId);
    assert.equal(out.lines[1]?.['trace_id'], undefined);
  });

  it('sends numbers to the installed sink (on the next turn of the event loop) and to nothing once it is removed', async () => {
    const seen: string[] = [];
    const sink = { ...metrics(), toolCall: (tool: string) => seen.push(tool) } as TelemetrySink;
    setTelemetrySink(sink);
    metrics().toolCall('bash', 0.1, false);
    metrics().toolCall('grep', 0.1, false);
    assert.deepEqual(seen, [], "not on the caller's path");
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(seen, ['bash', 'grep']);
    setTelemetrySink(undefined);
    metrics().toolCall('math', 0.1, false);
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(seen, ['bash', 'grep']);
  });
});
