/** How addresses are derived from the seed (spec 2.3 DerivationMethod). */
export const DerivationMethod = { Iguana: 'Iguana', HDWallet: 'HDWallet' } as const;
export type DerivationMethod = (typeof DerivationMethod)[keyof typeof DerivationMethod];
