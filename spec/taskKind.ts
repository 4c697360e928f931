/**
 * The task-managed methods (spec 3.2 holds for each): `task::<kind>::init|status|
 * user_action|cancel`. One task machine runs every kind; a task answers only to its own kind's
 * methods (another kind's `status` of its id is `NoSuchTask`, as the reference keeps one task
 * manager per kind). Task ids are one sequence across kinds.
 */
export const TaskKind = {
  /** EVM and TRON platforms with tokens (spec 4.1–4.4). */
  EnableEth: 'enable_eth',
  /** UTXO coins over Electrum or a native daemon (docs/rpc.md). */
  EnableUtxo: 'enable_utxo',
  /** QTUM over Electrum or a native daemon (docs/rpc.md). */
  EnableQtum: 'enable_qtum',
  /** The balances of an enabled coin's HD account (docs/compatibility.md §21): no activation. */
  AccountBalance: 'account_balance',
  /** A withdrawal built and signed (issue 25, docs/compatibility.md §23): no activation. */
  Withdraw: 'withdraw',
  /** A new address of an enabled coin's HD account (docs/compatibility.md §24): no activation. */
  GetNewAddress: 'get_new_address',
  /** A scan of an enabled coin's HD account beyond its known addresses (docs/compatibility.md §24). */
  ScanForNewAddresses: 'scan_for_new_addresses',
} as const;
export type TaskKind = (typeof TaskKind)[keyof typeof TaskKind];

/** `task::<kind>`: the method prefix, as errors and docs name a kind. */
export const taskMethod = (kind: TaskKind): string => `task::${kind}`;

/** The kind a `TaskCreated` records; absent in logs written before other kinds existed: `enable_eth`. */
export const taskKindOf = (recorded: TaskKind | undefined): TaskKind => recorded ?? TaskKind.EnableEth;
