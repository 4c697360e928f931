/**
 * Writes infra/evm/multicall/deploylessCode.ts from devnet/evm/contracts/DeploylessBalances.sol,
 * compiled with the project's pinned solc: `npx tsx scripts/deploylessCode.ts`. The product ships
 * the creation code as a constant, so a production install needs no compiler;
 * deploylessCode.test.ts fails when the two differ.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { compileDeployless, deploylessModuleText } from '../devnet/evm/deploylessContract.ts';

const target = fileURLToPath(new URL('../infra/evm/multicall/deploylessCode.ts', import.meta.url));
await writeFile(target, deploylessModuleText((await compileDeployless()).bytecode));
process.stdout.write(`wrote ${target}\n`);
