import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clearSolidityMemoryCache, compileSolidity, solcVersion } from './solidity.ts';

const source = (value: number) => `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;
contract Answer { function get() external pure returns (uint256) { return ${value}; } }
interface IAnswer { function get() external pure returns (uint256); }`;

test('compiles, caches on disk and in memory, and recompiles a changed source', async (t) => {
  const cacheDir = await mkdtemp(path.join(tmpdir(), 'solc-cache-'));
  t.after(() => rm(cacheDir, { recursive: true, force: true }));

  const first = await compileSolidity({ 'Answer.sol': source(42) }, { cacheDir });
  const answer = first.find((c) => c.contractName === 'Answer');
  assert.equal(answer?.sourceName, 'Answer.sol');
  assert.match(answer!.bytecode, /^0x[0-9a-f]{100,}$/);
  assert.deepEqual(answer!.abi.map((f) => f.name), ['get']);
  assert.equal(first.find((c) => c.contractName === 'IAnswer')?.bytecode, '0x');
  assert.equal((await readdir(cacheDir)).length, 1);

  assert.equal(await compileSolidity({ 'Answer.sol': source(42) }, { cacheDir }), first, 'same promise from memory');
  clearSolidityMemoryCache();
  const fromDisk = await compileSolidity({ 'Answer.sol': source(42) }, { cacheDir });
  assert.notEqual(fromDisk, first);
  assert.deepEqual(fromDisk, first);

  const changed = await compileSolidity({ 'Answer.sol': source(43) }, { cacheDir });
  assert.notEqual(changed.find((c) => c.contractName === 'Answer')!.bytecode, answer!.bytecode);
  assert.equal((await readdir(cacheDir)).length, 2);
  assert.match(solcVersion(), /^\d+\.\d+\.\d+/);
});

test('compiler errors throw with the solc message and are not cached', async (t) => {
  const cacheDir = await mkdtemp(path.join(tmpdir(), 'solc-cache-'));
  t.after(() => rm(cacheDir, { recursive: true, force: true }));
  const broken = { 'Broken.sol': 'pragma solidity ^0.8.0; contract Broken { function f( }' };
  await assert.rejects(compileSolidity(broken, { cacheDir }), /solc failed:[\s\S]*ParserError[\s\S]*Broken\.sol/);
  await assert.rejects(compileSolidity(broken, { cacheDir }), /ParserError/);
  assert.deepEqual(await readdir(cacheDir), []);
});
