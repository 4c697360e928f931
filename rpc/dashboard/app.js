// The dashboard (docs/dashboard.md): signs in with the RPC password, follows `/events` and shows
// every coin and task. Events say *what* changed; the RPC says what it *is* now (`coin_status`,
// `task::<kind>::status`), so the page holds no copy of the service's rules. Plain browser
// JavaScript, no build step, nothing from outside this origin.
//
// The password is kept in memory and in this tab's sessionStorage (so a reload stays signed in),
// and is sent only in request bodies and the `Authorization` header: never in a URL.

const STORAGE_KEY = 'coin-activation.rpc-password';
/** Reconnect backoff after a dropped stream: doubles from the first to the last. */
const RECONNECT_FIRST_MS = 500;
const RECONNECT_LAST_MS = 10_000;
/**
 * A stream silent this long is taken as dead: three missed heartbeats at the default 15 s. Each
 * time it fires the allowance doubles (up to 10 min), as the heartbeat may be configured longer.
 */
const SILENCE_FIRST_MS = 45_000;
const SILENCE_LAST_MS = 600_000;
let silenceMs = SILENCE_FIRST_MS;
/** The RPC's largest batch. */
const BATCH_MAX = 1000;

const $ = (id) => document.getElementById(id);

let password = null;
/** `id:` of the last event applied: where a reconnect resumes (`Last-Event-ID`). */
let lastEventId = null;
let stream = null; // AbortController of the open stream
let signedIn = false;
/** Which sign-in the running `follow` loop belongs to: a loop of an earlier one stops. */
let session = 0;

/**
 * ticker → { ticker, platform, hint, holdings, status, error, activity }: `holdings` maps each address
 * of the coin to its balance, from `CoinActivated` and then every `BalanceChanged` (the watched
 * balance, issue 24); `activity` maps an event kind to its line.
 */
const coins = new Map();
/** task id → { id, ticker, kind, status, activity } */
const tasks = new Map();
const dirtyCoins = new Set();
const dirtyTasks = new Set();
let flushQueued = false;
let flushing = false;
/** A change only the events tell (a balance) waits to be shown. */
let renderPending = false;

// ---------------------------------------------------------------- RPC

async function rpc(body) {
  const withPassword = (b) => ({ ...b, userpass: password });
  const res = await fetch('/', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(Array.isArray(body) ? body.map(withPassword) : withPassword(body)),
    cache: 'no-store',
  });
  return res.json();
}

/** The sentence to show when an answer is the RPC refusing the password, else `null`. */
function authRefusal(answer) {
  const type = answer && typeof answer === 'object' ? answer.error_type : undefined;
  if (type === 'UserpassIsInvalid') {
    const left = answer.error_data && answer.error_data.error_data;
    return `Wrong RPC password.${Number.isInteger(left) ? ` ${left} attempts left before this address is locked out.` : ''}`;
  }
  if (type === 'Banned') {
    const seconds = Number.isInteger(answer.error_data) ? ` for ${answer.error_data} s` : '';
    return `Too many wrong passwords from this address: locked out${seconds}.`;
  }
  if (type === 'UserpassIsNotSet') return 'Enter the RPC password.';
  if (typeof answer?.error === 'string' && /userpass|password/i.test(answer.error)) return answer.error; // legacy form
  return null;
}

// ---------------------------------------------------------------- sign in and out

async function signIn(typed) {
  password = typed;
  showError($('login-error'), null);
  let answer;
  try {
    answer = await rpc({ mmrpc: '2.0', method: 'get_enabled_coins', params: {} });
  } catch (e) {
    password = null;
    return showError($('login-error'), `The service does not answer (${e.message}).`);
  }
  const refused = authRefusal(answer);
  if (refused !== null || answer.error !== undefined) {
    password = null;
    sessionStorage.removeItem(STORAGE_KEY);
    return showError($('login-error'), refused ?? `The service refused: ${answer.error}`);
  }
  sessionStorage.setItem(STORAGE_KEY, typed);
  signedIn = true;
  $('password').value = '';
  $('login-panel').hidden = true;
  $('data-panel').hidden = false;
  $('logout').hidden = false;
  for (const { ticker } of answer.result.coins) markCoin(coinOf(ticker));
  scheduleFlush();
  follow();
}

function signOut(message) {
  signedIn = false;
  password = null;
  sessionStorage.removeItem(STORAGE_KEY);
  stream?.abort();
  stream = null;
  clearView();
  $('data-panel').hidden = true;
  $('logout').hidden = true;
  $('login-panel').hidden = false;
  setConnection('signed-out', 'signed out');
  showError($('login-error'), message ?? null);
}

/** Forgets every coin and task and the stream position. */
function clearView() {
  lastEventId = null;
  coins.clear();
  tasks.clear();
  dirtyCoins.clear();
  dirtyTasks.clear();
  for (const id of ['coins', 'tasks']) $(id).tBodies[0].replaceChildren();
}

// ---------------------------------------------------------------- the stream

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Follows `/events` until signed out: reconnects with backoff, resuming after `lastEventId`. */
async function follow() {
  const mine = ++session;
  let backoff = RECONNECT_FIRST_MS;
  while (signedIn && session === mine) {
    setConnection(lastEventId === null ? 'connecting' : 'reconnecting', lastEventId === null ? 'connecting…' : `reconnecting after event ${lastEventId}…`);
    const controller = new AbortController();
    stream = controller;
    let outcome;
    try {
      outcome = await readStream(controller, () => (backoff = RECONNECT_FIRST_MS));
    } catch (e) {
      const silent = e.name === 'AbortError';
      if (silent) silenceMs = Math.min(silenceMs * 2, SILENCE_LAST_MS);
      outcome = { reason: silent ? 'no heartbeat' : e.message };
    }
    if (!signedIn || session !== mine) return;
    if (outcome.refused !== undefined) return signOut(outcome.refused);
    showError($('stream-error'), `Stream interrupted (${outcome.reason}); resuming.`);
    await sleep(backoff);
    backoff = Math.min(backoff * 2, RECONNECT_LAST_MS);
  }
}

/** One connection: resolves when it ends; `{ refused }` when the password was refused. */
async function readStream(controller, onReady) {
  const headers = { Authorization: `Bearer ${password}`, Accept: 'text/event-stream' };
  // The first connection reads the log from its start: the tasks and coins of before the page opened.
  headers['Last-Event-ID'] = lastEventId ?? '0';
  const res = await fetch('/events', { headers, signal: controller.signal, cache: 'no-store' });
  if (res.status === 401 || res.status === 403) {
    const body = await res.json().catch(() => ({}));
    return { refused: authRefusal(body) ?? 'The RPC password was refused.' };
  }
  if (res.status === 400 && lastEventId !== null) {
    // The log no longer holds our position (a new data folder): start over from its beginning.
    clearView();
    return { reason: 'the service lost our position; reading its log again' };
  }
  if (!res.ok || res.body === null) return { reason: `HTTP ${res.status}` };
  let silence = setTimeout(() => controller.abort(), silenceMs);
  const parser = sseParser((frame) => onFrame(frame, onReady));
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { reason: 'the service closed it' };
      clearTimeout(silence);
      silence = setTimeout(() => controller.abort(), silenceMs);
      parser.push(value);
    }
  } finally {
    clearTimeout(silence);
  }
}

/** A text/event-stream parser (the parts of the HTML standard's that the service sends). */
function sseParser(dispatch) {
  let buffer = '';
  let frame = { event: '', data: [], id: null };
  const line = (text) => {
    if (text === '') {
      if (frame.data.length > 0) dispatch({ event: frame.event || 'message', data: frame.data.join('\n'), id: frame.id });
      frame = { event: '', data: [], id: null };
      return;
    }
    if (text.startsWith(':')) return; // a comment
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    let value = colon < 0 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') frame.event = value;
    else if (field === 'data') frame.data.push(value);
    else if (field === 'id' && !value.includes('\0')) frame.id = value;
  };
  return {
    push(chunk) {
      buffer += chunk;
      let end;
      while ((end = buffer.indexOf('\n')) >= 0) {
        line(buffer.slice(0, end).replace(/\r$/, ''));
        buffer = buffer.slice(end + 1);
      }
    },
  };
}

function onFrame({ event, data, id }, onReady) {
  if (event === 'ready') {
    onReady();
    showError($('stream-error'), null);
    return setConnection('live', 'live');
  }
  if (event === 'heartbeat') return;
  let parsed;
  try {
    parsed = JSON.parse(data);
  } catch {
    return;
  }
  const isDomainEvent = parsed !== null && typeof parsed === 'object' && typeof parsed.type === 'string' && typeof parsed.metadata === 'object';
  if (!isDomainEvent) {
    // A control frame, e.g. the one that closes a client too slow to keep up: the reconnect resumes.
    return setConnection('reconnecting', `${event}: ${typeof parsed === 'string' ? parsed : JSON.stringify(parsed)}`);
  }
  apply(parsed);
  if (id !== null) lastEventId = id;
  $('connection').dataset.lastEventId = lastEventId ?? '';
}

// ---------------------------------------------------------------- events → what to ask the RPC

function coinOf(ticker, platform) {
  let coin = coins.get(ticker);
  if (coin === undefined) {
    coin = { ticker, platform: platform ?? null, hint: null, holdings: new Map(), status: undefined, error: null, activity: new Map(), history: null };
    coins.set(ticker, coin);
  }
  if (platform !== undefined) coin.platform = platform;
  return coin;
}

function taskOf(id) {
  let task = tasks.get(id);
  if (task === undefined) {
    task = { id, ticker: '', kind: 'enable_eth', status: undefined, activity: new Map() };
    tasks.set(id, task);
  }
  return task;
}

const markCoin = (coin) => dirtyCoins.add(coin.ticker);
const markTask = (task) => dirtyTasks.add(task.id);

/** The latest event of each kind is shown as a coin's or task's activity: one line each. */
function noteActivity(activity, event) {
  activity.set(event.type, summary(event));
}

/** One line for an event shown as activity. */
function summary(event) {
  const d = event.data ?? {};
  switch (event.type) {
    case 'NodeAttempted':
      return `read ${d.read}: node ${d.node} (${d.origin}) ${d.outcome} in ${d.ms} ms${d.retry > 0 ? ` (retry ${d.retry})` : ''}`;
    case 'TokensRead':
      return `tokens read: ${d.read} of ${d.of}`;
    case 'BalanceChanged':
      return `balance of ${d.address} changed at block ${d.block}`;
    case 'AddressCreated':
      return `new address ${d.address} (${d.derivationPath})`;
    case 'AddressesScanned':
      return `scan of ${d.chain}: ${d.addresses.length} addresses added, ${d.knownAddresses} known`;
    case 'HdWindowScanned':
      return `HD scan: addresses ${d.fromIndex}–${d.fromIndex + d.checked - 1} checked, ${d.knownAddresses ?? '?'} known used`;
    default: {
      // Any other event: its type and its plain fields, e.g. `RequiredConfirmationsSet confirmations=7`.
      const parts = Object.entries(d)
        .filter(([k, v]) => !['ticker', 'taskId', 'platform'].includes(k) && ['number', 'string', 'boolean'].includes(typeof v))
        .map(([k, v]) => `${k}=${v}`);
      return [event.type, ...parts].join(' ');
    }
  }
}

/**
 * The balance of `ticker` at each address `CoinActivated` lists: its one address, or every listed
 * address of an HD account.
 */
function holdingsAt(d, ticker, balance) {
  if (d.hd === undefined) return new Map(balance === undefined ? [] : [[d.address, balance]]);
  return new Map(d.hd.addresses.filter((a) => a.balances[ticker] !== undefined).map((a) => [a.address, a.balances[ticker]]));
}

/** Notes what `event` changed: the coins and tasks to read again, and what only the event tells. */
function apply(event) {
  const d = event.data ?? {};
  switch (event.type) {
    case 'SessionStarted':
      for (const coin of coins.values()) {
        Object.assign(coin, { hint: null, holdings: new Map(), activity: new Map(), history: null });
        markCoin(coin);
      }
      break;
    case 'ActivationRequested':
      Object.assign(coinOf(d.ticker), { hint: 'activating', error: null, activity: new Map() });
      markCoin(coinOf(d.ticker));
      break;
    case 'CoinActivated':
      Object.assign(coinOf(d.ticker), { hint: null, holdings: holdingsAt(d, d.ticker, d.balance), error: null, activity: new Map(), history: null });
      markCoin(coinOf(d.ticker));
      for (const token of d.tokens ?? []) {
        Object.assign(coinOf(token.ticker, d.ticker), { hint: null, holdings: holdingsAt(d, token.ticker, token.balance) });
        markCoin(coinOf(token.ticker));
      }
      break;
    case 'BalanceChanged': {
      // The watched balance of one address: shown from the event alone, no RPC read.
      const coin = coinOf(d.ticker, d.ticker === d.platform ? undefined : d.platform);
      coin.holdings.set(d.address, d.new);
      noteActivity(coin.activity, event);
      renderPending = true;
      break;
    }
    case 'AddressCreated':
    case 'AddressesScanned':
      // Addresses an HD account gained after activation: their balances join the coin's and its tokens'.
      for (const a of event.type === 'AddressCreated' ? [d] : d.addresses) {
        for (const [ticker, balance] of Object.entries(a.balances)) coinOf(ticker, ticker === d.ticker ? undefined : d.ticker).holdings.set(a.address, balance);
      }
      noteActivity(coinOf(d.ticker).activity, event);
      renderPending = true;
      break;
    case 'ActivationFailed':
    case 'ActivationCancelled':
    case 'ActivationInterrupted':
      Object.assign(coinOf(d.ticker), { hint: null, error: d.error?.message ?? event.type.replace('Activation', 'activation ').toLowerCase() });
      markCoin(coinOf(d.ticker));
      break;
    case 'CoinDisabled':
      for (const ticker of [d.ticker, ...(d.tokens ?? [])]) {
        Object.assign(coinOf(ticker), { hint: null, holdings: new Map() });
        markCoin(coinOf(ticker));
      }
      break;
    case 'TokenDisabled':
      Object.assign(coinOf(d.ticker, d.platform), { hint: null, holdings: new Map() });
      markCoin(coinOf(d.ticker));
      break;
    // The history sync's progress (issue 26): the coin's History column, in the sync_status names.
    case 'HistorySyncStarted':
      coinOf(d.ticker).history = `InProgress: ${d.transactionsLeft} to fetch at block ${d.block}`;
      markCoin(coinOf(d.ticker));
      break;
    case 'HistorySynced':
      coinOf(d.ticker).history = `Finished: ${d.total} transactions at block ${d.block}`;
      markCoin(coinOf(d.ticker));
      break;
    case 'HistorySyncFailed':
      coinOf(d.ticker).history = `Error: ${d.message}`;
      markCoin(coinOf(d.ticker));
      break;
    case 'TaskCreated':
      // Its kind names the status method (`task::<kind>::status`); events before kinds: enable_eth.
      Object.assign(taskOf(d.taskId), { ticker: d.ticker, kind: d.kind ?? 'enable_eth' });
      markTask(taskOf(d.taskId));
      break;
    case 'TaskProgressed':
      Object.assign(taskOf(d.taskId), { status: { status: d.status, details: d.details } });
      markTask(taskOf(d.taskId));
      break;
    case 'TaskForgotten':
      tasks.delete(d.taskId);
      dirtyTasks.delete(d.taskId);
      $('tasks').tBodies[0].querySelector(`tr[data-task="${d.taskId}"]`)?.remove();
      break;
    default:
      // Settings, gas price, a task's end, and progress events: read the coin or task again and
      // show the event as the latest of its kind.
      if (Number.isInteger(d.taskId) && tasks.has(d.taskId)) {
        if (!event.type.startsWith('Task')) noteActivity(taskOf(d.taskId).activity, event);
        markTask(taskOf(d.taskId));
      }
      if (typeof d.ticker === 'string') {
        if (!event.type.startsWith('Task')) noteActivity(coinOf(d.ticker).activity, event);
        markCoin(coinOf(d.ticker));
      }
  }
  scheduleFlush();
}

function scheduleFlush() {
  if (flushQueued) return;
  flushQueued = true;
  queueMicrotask(flush); // every frame of one chunk first, then one batch
}

/** Reads the marked coins and tasks in RPC batches, then shows them. */
async function flush() {
  flushQueued = false;
  if (flushing || !signedIn) return;
  flushing = true;
  try {
    if (renderPending && dirtyCoins.size === 0 && dirtyTasks.size === 0) render();
    while (signedIn && (dirtyCoins.size > 0 || dirtyTasks.size > 0)) {
      const coinList = [...dirtyCoins].slice(0, BATCH_MAX);
      const taskList = [...dirtyTasks].slice(0, BATCH_MAX - coinList.length);
      for (const t of coinList) dirtyCoins.delete(t);
      for (const t of taskList) dirtyTasks.delete(t);
      const batch = [
        ...coinList.map((ticker) => ({ mmrpc: '2.0', method: 'coin_status', params: { ticker } })),
        ...taskList.map((task_id) => ({ mmrpc: '2.0', method: `task::${tasks.get(task_id)?.kind ?? 'enable_eth'}::status`, params: { task_id, forget_if_finished: false } })),
      ];
      const answers = await rpc(batch);
      const refused = Array.isArray(answers) ? answers.map(authRefusal).find((r) => r !== null) : authRefusal(answers);
      if (refused !== undefined && refused !== null) return signOut(refused);
      if (!Array.isArray(answers)) throw new Error(answers?.error ?? 'unexpected answer');
      coinList.forEach((ticker, i) => {
        const coin = coins.get(ticker);
        if (coin === undefined) return;
        coin.status = answers[i].result ?? null; // null: not enabled (NoSuchCoin)
        if (coin.status?.platform !== undefined) coin.platform = coin.status.platform;
      });
      taskList.forEach((id, i) => {
        const task = tasks.get(id);
        const answer = answers[coinList.length + i];
        if (task === undefined) return;
        if (answer.error_type === 'NoSuchTask') {
          tasks.delete(id);
          $('tasks').tBodies[0].querySelector(`tr[data-task="${id}"]`)?.remove();
        } else task.status = answer.result ?? { status: 'Error', details: { error: answer.error } };
      });
      render();
    }
  } catch (e) {
    showError($('stream-error'), `The RPC does not answer (${e.message}); retrying.`);
    setTimeout(scheduleFlush, 1000);
  } finally {
    flushing = false;
  }
}

// ---------------------------------------------------------------- rendering (textContent only)

function cell(row, index, text, className) {
  while (row.cells.length <= index) row.insertCell();
  const td = row.cells[index];
  if (td.textContent !== text) td.textContent = text;
  if (className !== undefined) td.className = className;
  return td;
}

function stateOf(coin) {
  return coin.status?.state ?? coin.hint ?? 'inactive';
}

/** The exact sum of two non-negative decimal strings (BigInt, never floating point). */
function addDecimal(a, b) {
  const [ai, af = ''] = a.split('.');
  const [bi, bf = ''] = b.split('.');
  const scale = Math.max(af.length, bf.length);
  const digits = (BigInt(ai + af.padEnd(scale, '0')) + BigInt(bi + bf.padEnd(scale, '0'))).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

/** A coin's balance over all its addresses (`—` when none was read). */
function balanceText(holdings) {
  if (holdings.size === 0) return '—';
  let spendable = '0';
  let unspendable = '0';
  for (const balance of holdings.values()) {
    spendable = addDecimal(spendable, balance.spendable);
    unspendable = addDecimal(unspendable, balance.unspendable);
  }
  return unspendable === '0' ? spendable : `${spendable} (+${unspendable} unspendable)`;
}

function settingsText(status) {
  if (!status) return '—';
  const parts = [
    `confirmations ${status.required_confirmations}`,
    `notarization ${status.requires_notarization ? 'required' : 'not required'}`,
    `tx_history ${status.tx_history ? 'on' : 'off'}`,
  ];
  if (status.wallet_only) parts.push('wallet only');
  const gas = status.gas_station;
  if (gas?.gas_price_gwei !== undefined) parts.push(`gas ${gas.gas_price_gwei} gwei${gas.stale ? ' (stale)' : ''}`);
  if (status.electrum_connections) parts.push(`electrum ${status.electrum_connections.min_connected}–${status.electrum_connections.max_connected} connections`);
  return parts.join(' · ');
}

/** The coin's history sync: from its last history event, else whether `tx_history` is on. */
function historyText(coin) {
  if (coin.history !== null) return coin.history;
  if (!coin.status) return '—';
  return coin.status.tx_history ? 'NotStarted' : 'NotEnabled';
}

/** Platforms (and coins of their own) by ticker, each followed by its tokens. */
function coinOrder() {
  const platforms = [...coins.values()].filter((c) => c.platform === null || !coins.has(c.platform)).sort((a, b) => a.ticker.localeCompare(b.ticker));
  return platforms.flatMap((p) => [p, ...[...coins.values()].filter((c) => c.platform === p.ticker).sort((a, b) => a.ticker.localeCompare(b.ticker))]);
}

function render() {
  renderPending = false;
  const coinBody = $('coins').tBodies[0];
  for (const coin of coinOrder()) {
    let row = coinBody.querySelector(`tr[data-ticker="${CSS.escape(coin.ticker)}"]`);
    if (row === null) {
      row = document.createElement('tr');
      row.dataset.ticker = coin.ticker;
    }
    coinBody.append(row); // moves it into order
    row.classList.toggle('token', coin.platform !== null);
    const state = stateOf(coin);
    const enabled = state !== 'inactive';
    cell(row, 0, coin.platform === null ? coin.ticker : `${coin.ticker} (on ${coin.platform})`);
    const stateCell = cell(row, 1, '');
    let word = stateCell.querySelector('.state');
    if (word === null) {
      word = document.createElement('span');
      word.className = 'state';
      const note = document.createElement('div');
      note.className = 'activity';
      stateCell.replaceChildren(word, note);
    }
    word.textContent = state;
    word.dataset.state = state;
    stateCell.querySelector('.activity').textContent = coin.error ?? [...coin.activity.values()].join(' · ');
    cell(row, 2, enabled ? (coin.status?.address ?? '—') : '—', 'address');
    cell(row, 3, enabled ? balanceText(coin.holdings) : '—');
    cell(row, 4, enabled ? settingsText(coin.status) : '—');
    cell(row, 5, enabled ? historyText(coin) : '—', 'history');
    row.dataset.state = state;
  }
  $('no-coins').hidden = coins.size > 0;

  const taskBody = $('tasks').tBodies[0];
  for (const task of [...tasks.values()].sort((a, b) => b.id - a.id)) {
    let row = taskBody.querySelector(`tr[data-task="${task.id}"]`);
    if (row === null) {
      row = document.createElement('tr');
      row.dataset.task = String(task.id);
    }
    taskBody.append(row);
    const status = task.status?.status ?? 'InProgress';
    cell(row, 0, `${task.id} ${task.kind}`);
    cell(row, 1, task.ticker);
    const statusCell = cell(row, 2, status, 'status');
    statusCell.dataset.status = status;
    cell(row, 3, [progressText(task.status), ...task.activity.values()].filter(Boolean).join(' · '));
    row.dataset.status = status;
  }
  $('no-tasks').hidden = tasks.size > 0;
}

function progressText(status) {
  if (status === undefined) return '';
  const details = status.details;
  if (typeof details === 'string') return details;
  if (status.status === 'Ok') {
    if (typeof details?.tx_hash === 'string') return `signed ${details.tx_hash} (not broadcast by the task)`;
    if (details?.new_address?.address !== undefined) return `new address ${details.new_address.address}`;
    if (details?.current_block !== undefined) return `activated at block ${details.current_block}`;
    return details?.total_balance !== undefined || details?.addresses !== undefined ? 'account read' : 'done';
  }
  if (status.status === 'Error') return details?.error ?? 'failed';
  return '';
}

function setConnection(kind, text) {
  const p = $('connection');
  p.dataset.connection = kind;
  p.textContent = text;
}

function showError(element, message) {
  element.hidden = message === null;
  element.textContent = message ?? '';
}

// ---------------------------------------------------------------- start

$('login').addEventListener('submit', (e) => {
  e.preventDefault();
  void signIn($('password').value);
});
$('logout').addEventListener('click', () => signOut(null));
const kept = sessionStorage.getItem(STORAGE_KEY);
if (kept !== null) void signIn(kept);
