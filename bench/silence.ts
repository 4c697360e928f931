/**
 * Imported first by the bench (ES modules evaluate in import order), so the service's console
 * logger is silent before any service module loads. An explicit `COIN_ACTIVATION_LOG` wins, so a
 * debugging run can still turn the log back on.
 */
process.env.COIN_ACTIVATION_LOG ??= 'silent';

export {};
