import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseNftPage } from './nftPage.ts';

const ADDRESS = '0xED55e4477B795eAA9BB4bca24dF42214E1A05C18';
const entry = (fields: Record<string, unknown>) => ({ token_address: ADDRESS, token_id: '1111777', contract_type: 'ERC1155', amount: '1', owner_of: ADDRESS, block_number: '1', ...fields });
const page = (result: unknown[], cursor: unknown = null) => JSON.stringify({ status: 'SYNCED', page: 1, page_size: 100, cursor, result });

describe('an NFT indexer page (Moralis-shaped, as the reference reads it)', () => {
  it('keeps ids and amounts exact, writes the token address in lowercase, and passes the cursor on', () => {
    const parsed = parseNftPage(page([entry({ token_id: '000115792089237316195423570985008687907853269984665640564039457584007913129639935', amount: '0012.50' })], 'abc.def'), 'POLYGON');
    assert.deepEqual(parsed, {
      holdings: [
        {
          tokenAddress: '0xed55e4477b795eaa9bb4bca24df42214e1a05c18',
          tokenId: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
          chain: 'POLYGON',
          contractType: 'ERC1155',
          amount: '12.5',
        },
      ],
      cursor: 'abc.def',
    });
  });

  it('skips an entry without contract_type (null or absent), as the reference does', () => {
    const parsed = parseNftPage(page([entry({ contract_type: null }), entry({ contract_type: undefined }), entry({ contract_type: 'ERC721', token_id: '2' })]), 'ETH');
    assert.deepEqual(parsed.holdings.map((h) => [h.contractType, h.tokenId]), [['ERC721', '2']]);
  });

  it('ends on a null, absent or empty cursor', () => {
    assert.equal(parseNftPage(page([], null), 'ETH').cursor, undefined);
    assert.equal(parseNftPage(JSON.stringify({ result: [] }), 'ETH').cursor, undefined);
    assert.equal(parseNftPage(page([], ''), 'ETH').cursor, undefined);
  });

  it('refuses a malformed answer, saying where, rather than guessing a value', () => {
    const cases: [string, string][] = [
      ['<html>', 'the answer is not JSON'],
      ['[]', 'the answer is not a JSON object'],
      ['{"cursor":null}', 'the answer has no "result" list'],
      [page([], 7), 'the answer\'s "cursor" is not a string or null'],
      [page([7]), 'result[0] is not an object'],
      [page([entry({ contract_type: 'ERC20' })]), 'result[0].contract_type is neither ERC721 nor ERC1155 (got "ERC20")'],
      [page([entry({ token_address: '0x1234' })]), 'result[0].token_address is not an EVM address (got "0x1234")'],
      [page([entry({}), entry({ token_id: 5 })]), 'result[1].token_id is not a decimal integer string (got 5)'],
      [page([entry({ token_id: '-1' })]), 'result[0].token_id is not a decimal integer string (got "-1")'],
      [page([entry({ token_id: (2n ** 256n).toString() })]), `result[0].token_id exceeds uint256 (got "${(2n ** 256n).toString().slice(0, 39)}…)`],
      [page([entry({ amount: 1 })]), 'result[0].amount is not a non-negative decimal string (got 1)'],
      [page([entry({ amount: '1e3' })]), 'result[0].amount is not a non-negative decimal string (got "1e3")'],
      [page([entry({ amount: undefined })]), 'result[0].amount is not a non-negative decimal string (got undefined)'],
    ];
    for (const [text, message] of cases) assert.throws(() => parseNftPage(text, 'ETH'), { message }, text);
  });
});
