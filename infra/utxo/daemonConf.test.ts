import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { daemonConfPath, parseIni, readDaemonCredentials } from './daemonConf.ts';

describe('native daemon config', () => {
  test('where the file is: confpath (~/ or USERHOME/ prefix), asset chains, ~/.<name>/<name>.conf', () => {
    assert.deepEqual(daemonConfPath({ coin: 'X', confpath: 'USERHOME/.x/x.conf' }, '/home/u'), { path: '/home/u/.x/x.conf', shown: "'~/.x/x.conf'" });
    assert.deepEqual(daemonConfPath({ coin: 'X', confpath: '~/.x/x.conf' }, '/home/u'), { path: '/home/u/.x/x.conf', shown: "'~/.x/x.conf'" });
    assert.deepEqual(daemonConfPath({ coin: 'X', confpath: '/etc/x.conf', name: 'ignored' }, '/home/u'), {
      path: '/etc/x.conf',
      shown: "'x.conf' (the coins file's confpath)",
    });
    assert.deepEqual(daemonConfPath({ coin: 'DOC', name: 'doc', asset: 'DOC' } as never, '/home/u'), {
      path: '/home/u/.komodo/DOC/DOC.conf',
      shown: "'~/.komodo/DOC/DOC.conf'",
    });
    assert.deepEqual(daemonConfPath({ coin: 'KMD', name: 'komodo' }, '/home/u'), { path: '/home/u/.komodo/komodo.conf', shown: "'~/.komodo/komodo.conf'" });
    assert.ok('problem' in daemonConfPath({ coin: 'X' }, '/home/u'));
  });

  test('messages name the file as the daemon does, never by an absolute path', async () => {
    const home = await mkdtemp(join(tmpdir(), 'home-'));
    const conf = (entry: Parameters<typeof daemonConfPath>[0]) => {
      const found = daemonConfPath(entry, home);
      if ('problem' in found) throw new Error(found.problem);
      return found;
    };
    await assert.rejects(readDaemonCredentials({ coin: 'KMD' }, conf({ coin: 'KMD', name: 'komodo' })), {
      message: "Error parsing the native wallet configuration '~/.komodo/komodo.conf': ENOENT",
    });
    const configured = join(home, 'etc', 'ltc.conf');
    await assert.rejects(readDaemonCredentials({ coin: 'LTC' }, conf({ coin: 'LTC', confpath: configured })), {
      message: "Error parsing the native wallet configuration 'ltc.conf' (the coins file's confpath): ENOENT",
    });
    await writeFile(join(home, 'nouser.conf'), 'rpcpassword=p\n');
    await assert.rejects(readDaemonCredentials({ coin: 'X' }, conf({ coin: 'X', confpath: join(home, 'nouser.conf') })), {
      message: "Conf file 'nouser.conf' (the coins file's confpath) doesn't have the rpcuser key",
    });
  });

  test('ini: sections, comments, spaces; a test network reads its section first', async () => {
    const ini = parseIni('# c\nrpcuser = top\nrpcpassword=pw=with=equals\n[regtest]\nrpcport=18443\n; c\n[test]\nrpcport=19332\n');
    assert.equal(ini.get('rpcuser'), 'top');
    assert.equal(ini.get('rpcpassword'), 'pw=with=equals');
    assert.equal(ini.get('regtest.rpcport'), '18443');
    const path = join(await mkdtemp(join(tmpdir(), 'conf-')), 'c.conf');
    await writeFile(path, 'rpcuser=u\nrpcpassword=p\nrpcport=1\n[regtest]\nrpcport=18443\nrpcuser=ru\n');
    const conf = { path, shown: "'c.conf'" };
    assert.deepEqual(await readDaemonCredentials({ coin: 'X', network: 'regtest' } as never, conf), { port: 18443, user: 'ru', password: 'p' });
    assert.deepEqual(await readDaemonCredentials({ coin: 'X' }, conf), { port: 1, user: 'u', password: 'p' });
  });
});
