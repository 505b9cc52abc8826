/** Contract suite for UserStore: users, hashed tokens, first-link-wins platform links. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { GatewayError } from '../../src/shared/errors.js';
import { useStores, type StoresFactory } from './stores-factory.js';

const hash = (token: string): string => createHash('sha256').update(token).digest('hex');

export function userStoreContract(label: string, factory: StoresFactory): void {
  describe(`UserStore contract (${label})`, () => {
    const stores = useStores(factory);

    it('creates a user and finds it by id and by username', async () => {
      const user = await stores().users.createUser('alice', { isAdmin: true });
      assert.equal(user.username, 'alice');
      assert.equal(user.isAdmin, true);
      assert.match(user.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
      assert.deepEqual(await stores().users.getUser(user.userId), user);
      assert.deepEqual(await stores().users.getUserByUsername('alice'), user);
      assert.equal(await stores().users.getUserByUsername('nobody'), undefined);
    });

    it('rejects a duplicate username with a CONFLICT storage error', async () => {
      await stores().users.createUser('bob');
      await assert.rejects(stores().users.createUser('bob'), (error: unknown) => {
        assert.ok(error instanceof GatewayError);
        assert.equal(error.code, 'CONFLICT');
        return true;
      });
    });

    it('stores tokens by hash and finds them with their scopes and expiry', async () => {
      const user = await stores().users.createUser('carol');
      const token = await stores().users.createToken({
        userId: user.userId,
        tokenHash: hash('secret-token-1'),
        scopes: ['read', 'write'],
        expires: '2099-01-01T00:00:00',
      });
      const found = await stores().users.findTokenByHash(hash('secret-token-1'));
      assert.deepEqual(found, token);
      assert.deepEqual(found?.scopes, ['read', 'write']);
      assert.equal(found?.expires, '2099-01-01T00:00:00');
      const noExpiry = await stores().users.createToken({
        userId: user.userId,
        tokenHash: hash('t2'),
        scopes: [],
        expires: null,
      });
      assert.equal(noExpiry.expires, null);
      assert.deepEqual((await stores().users.findTokenByHash(hash('t2')))?.scopes, []);
      assert.equal(await stores().users.findTokenByHash(hash('unknown')), undefined);
    });

    it('keeps the first link of a platform user and unlinks it', async () => {
      const dave = await stores().users.createUser('dave');
      const erin = await stores().users.createUser('erin');
      assert.equal(await stores().users.link('discord', '111', dave.userId), true);
      assert.equal(await stores().users.link('discord', '111', erin.userId), false);
      assert.equal((await stores().users.getLink('discord', '111'))?.userId, dave.userId);
      assert.deepEqual(await stores().users.getLinkedUser('discord', '111'), dave);
      assert.equal(await stores().users.getLinkedUser('discord', '999'), undefined);
      assert.equal(await stores().users.link('slack', '111', erin.userId), true);
      const many = await stores().users.getLinkedUsers('discord', [
        '111',
        '999',
        ...Array.from({ length: 600 }, (_, k) => `x${k}`),
      ]);
      assert.deepEqual([...many.entries()], [['111', dave]], 'one platform only; unlinked identities are absent');
      assert.deepEqual([...(await stores().users.getLinkedUsers('slack', ['111'])).values()], [erin]);
      assert.equal(await stores().users.unlink('discord', '111'), true);
      assert.equal(await stores().users.unlink('discord', '111'), false);
      assert.equal(await stores().users.getLink('discord', '111'), undefined);
      assert.equal(await stores().users.getLinkedUser('discord', '111'), undefined);
      assert.equal(await stores().users.link('discord', '111', erin.userId), true);
    });

    it('lists every linked identity with its user, up to a limit', async () => {
      const hugo = await stores().users.createUser('directory-hugo');
      await stores().users.link('discord', 'g1', hugo.userId);
      await stores().users.link('slack', 'U-G', hugo.userId);
      const all = await stores().users.listLinkedUsers(100_000);
      const mine = all.filter((identity) => identity.user.userId === hugo.userId);
      assert.deepEqual(mine.map((identity) => `${identity.channelType}:${identity.channelUserId}`).sort(), [
        'discord:g1',
        'slack:U-G',
      ]);
      assert.deepEqual(mine[0]?.user, hugo);
      assert.equal((await stores().users.listLinkedUsers(1)).length, 1);
      await stores().users.unlink('slack', 'U-G');
      assert.equal(
        (await stores().users.listLinkedUsers(100_000)).filter((identity) => identity.user.userId === hugo.userId)
          .length,
        1,
      );
    });

    it('lists the links of a user', async () => {
      const frank = await stores().users.createUser('frank');
      await stores().users.link('discord', 'f1', frank.userId);
      await stores().users.link('slack', 'U-F', frank.userId);
      const links = await stores().users.listLinks(frank.userId);
      assert.deepEqual(links.map((link) => `${link.channelType}:${link.channelUserId}`).sort(), [
        'discord:f1',
        'slack:U-F',
      ]);
      assert.deepEqual(await stores().users.listLinks('no-such-user'), []);
    });

    it('lists users and tokens (without hashes) and revokes a token so it no longer authenticates', async () => {
      const gina = await stores().users.createUser('gina');
      const token = await stores().users.createToken({
        userId: gina.userId,
        tokenHash: hash('gina-1'),
        scopes: ['read'],
        expires: null,
      });
      assert.ok((await stores().users.listUsers()).some((user) => user.username === 'gina'));
      const listed = await stores().users.listTokens(gina.userId);
      assert.deepEqual(listed, [token]);
      assert.ok(!JSON.stringify(listed).includes(hash('gina-1')));
      assert.ok((await stores().users.listTokens()).some((entry) => entry.tokenId === token.tokenId));
      assert.equal(await stores().users.revokeToken(token.tokenId), true);
      assert.equal(await stores().users.revokeToken(token.tokenId), false);
      assert.equal(await stores().users.findTokenByHash(hash('gina-1')), undefined);
      assert.deepEqual(await stores().users.listTokens(gina.userId), []);
    });
  });
}
