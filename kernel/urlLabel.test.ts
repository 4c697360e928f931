import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { urlLabel } from './urlLabel.ts';

describe('urlLabel', () => {
  it('keeps scheme, host and port, never path, query or credentials', () => {
    assert.equal(urlLabel('https://user:pw@node.example:8545/v3/KEY?apikey=KEY'), 'https://node.example:8545');
    assert.equal(urlLabel('wss://node.example/ws/KEY'), 'wss://node.example');
  });

  it('names the host of a scheme without a web origin instead of "null"', () => {
    assert.equal(urlLabel('tcp://node.example:9/KEY'), 'tcp://node.example:9');
    assert.equal(urlLabel('not a url'), '(invalid url)');
  });
});
