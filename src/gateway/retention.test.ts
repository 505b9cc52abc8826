import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { createLogger } from '../shared/logger.js';
import { createTestStores, testPostgresUrl } from '../../test/helpers/test-stores.js';
import { runRetention } from './retention.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const engines = [undefined, ...(testPostgresUrl() ? [testPostgresUrl()] : [])];

describe('retention purge', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  for (const url of engines) {
    it(`deletes old idle conversations with their folders and old delivery records, keeps the rest (${url === undefined ? 'sqlite' : 'postgres'})`, async () => {
      const db = await createTestStores(url === undefined ? {} : { url });
      const workspaceDir = mkdtempSync(path.join(tmpdir(), 'sp-retention-'));
      dirs.push(workspaceDir);
      try {
        const user = await db.stores.users.createUser('ret');
        for (const wsId of ['wsold', 'wsnew', 'wsbusy']) {
          await db.stores.workstreams.create(
            { wsId, userId: user.userId, name: wsId, modelAlias: '' },
            { route: { channelType: 'discord', channelId: `thread-${wsId}` } },
          );
          mkdirSync(path.join(workspaceDir, wsId));
        }
        await db.stores.settleWrites?.();
        await db.stores.conversations.append('wsold', { role: 'user', content: 'old' });
        await db.knex('workstreams').whereIn('ws_id', ['wsold', 'wsbusy']).update({ updated: '2026-01-01T00:00:00' });
        await db
          .knex('workstream_leases')
          .insert({ workstream_id: 'wsbusy', holder: 'node-1', expires_at: NOW + 60_000, acquired_at: NOW });
        await db.knex('notify_deliveries').insert([
          {
            delivery_id: 'd-old',
            ws_id: 'wsnew',
            channel_type: 'discord',
            channel_id: 'c',
            message_id: 'm1',
            created: '2026-05-01T00:00:00',
          },
          {
            delivery_id: 'd-new',
            ws_id: 'wsnew',
            channel_type: 'discord',
            channel_id: 'c',
            message_id: 'm2',
            created: '2026-05-31T00:00:00',
          },
        ]);
        const lifecycle = db.stores.lifecycle;
        const logger = createLogger({ level: 'silent' });
        await runRetention({ lifecycle, workspaceDir, retentionDays: 0, notifyReplyDays: 7, logger, now: () => NOW });
        assert.equal((await db.stores.workstreams.list()).length, 3, 'retention_days = 0 keeps every conversation');
        await runRetention({ lifecycle, workspaceDir, retentionDays: 30, notifyReplyDays: 7, logger, now: () => NOW });
        assert.deepEqual((await db.stores.workstreams.list()).map((ws) => ws.wsId).sort(), ['wsbusy', 'wsnew']);
        assert.deepEqual(await db.stores.conversations.load('wsold'), []);
        assert.equal(await db.stores.routes.getRoute('discord', 'thread-wsold'), undefined);
        assert.deepEqual(
          [existsSync(path.join(workspaceDir, 'wsold')), existsSync(path.join(workspaceDir, 'wsnew'))],
          [false, true],
        );
        assert.deepEqual(
          (await db.knex('notify_deliveries').select('delivery_id')).map(
            (row: { delivery_id: string }) => row.delivery_id,
          ),
          ['d-new'],
        );
      } finally {
        await db.close();
      }
    });
  }
});
