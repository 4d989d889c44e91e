/**
 * The live server the tests talk to (`corridor serve`, started by
 * tests/client_ts/test_typescript_sdk.py, which passes CORRIDOR_BASE_URL and
 * CORRIDOR_API_KEY), and onboarding as the README's walkthrough does it.
 */

import { Corridor, type Schemas } from "corridor-client";

const baseUrl = process.env["CORRIDOR_BASE_URL"];
const apiKey = process.env["CORRIDOR_API_KEY"];

/** Set on the tests that need the live server: skipped, with this reason, without one. */
export const needsServer =
  baseUrl && apiKey ? {} : { skip: "no live server: set CORRIDOR_BASE_URL and CORRIDOR_API_KEY" };

export function owner(): Corridor {
  return new Corridor({ apiKey, baseUrl });
}

export const ADDRESS = {
  addressLine1: "1 Main St",
  city: "Austin",
  state: "TX",
  postalCode: "78701",
  country: "US",
};

/** An ACTIVE customer with a funded USD balance and a US bank account of its own. */
export interface Payer {
  customer: Schemas["CustomerRead"];
  account: Schemas["AccountRead"];
  bankAccount: Schemas["ExternalAccountRead"];
}

export async function fundedPayer(corridor: Corridor, fundsMinor = "12550"): Promise<Payer> {
  const acceptance = await corridor.post("/v1/terms-of-service/acceptances");
  await corridor.post("/v1/terms-of-service/acceptances/{acceptance_id}/accept", {
    params: { path: { acceptance_id: acceptance.id } },
  });
  const created = await corridor.post("/v1/customers/individual", {
    body: {
      firstName: "Ada",
      lastName: "Lovelace",
      email: "ada@example.com",
      dateOfBirth: "1990-12-10",
      taxIdentificationNumber: "123-45-6789",
      address: ADDRESS,
      tosAcceptanceId: acceptance.id,
    },
  });
  const customerPath = { params: { path: { customer_id: created.id } } };
  await corridor.post("/v1/customers/{customer_id}/submit-verification", customerPath);
  const customer = await corridor.post("/v1/sandbox/customers/{customer_id}/verification-status", {
    ...customerPath,
    body: { status: "ACTIVE" },
  });
  let account: Schemas["AccountRead"] | undefined;
  for await (const candidate of corridor.list("/v1/customers/{customer_id}/accounts", customerPath)) {
    if (candidate.currency === "USD") account = candidate;
  }
  if (account === undefined) throw new Error(`no USD account for ${customer.id}`);
  await corridor.post("/v1/sandbox/accounts/{account_id}/fund", {
    params: { path: { account_id: account.id } },
    body: { amount: { currency: "USD", value: fundsMinor } },
  });
  const bankAccount = await corridor.post("/v1/external-accounts", {
    body: {
      customerId: customer.id,
      currency: "USD",
      country: "US",
      accountHolderName: "Ada Lovelace",
      accountNumber: "000123456789",
      routingNumber: "021000021",
    },
  });
  return { customer, account, bankAccount };
}

/** The body of an ACH payout from the payer's balance to its bank account. */
export function achPayout(payer: Payer, valueMinor: string): Schemas["TransferCreate"] {
  return {
    customerId: payer.customer.id,
    source: { accountId: payer.account.id },
    destination: {
      externalAccountId: payer.bankAccount.id,
      paymentRail: "ACH",
      currency: "USD",
    },
    amount: { currency: "USD", value: valueMinor },
  };
}

/** The same payout as an agent sends it: its key implies the customer; submitted at once. */
export function agentPayment(payer: Payer, valueMinor: string): Schemas["TransferCreate"] {
  const { customerId: _, ...body } = achPayout(payer, valueMinor);
  return { ...body, confirm: true };
}

/** An agent of the payer that may pay its bank account, and a client with its new key. */
export async function payingAgent(
  corridor: Corridor,
  payer: Payer,
  settings: Pick<Schemas["AgentCreate"], "name" | "limits" | "requireMandate">,
): Promise<{ agent: Schemas["AgentRead"]; bot: Corridor }> {
  const agent = await corridor.post("/v1/agents", {
    body: {
      customerId: payer.customer.id,
      sourceAccountId: payer.account.id,
      destinationAllowlist: [{ type: "external_account", id: payer.bankAccount.id }],
      ...settings,
    },
  });
  const key = await corridor.post("/v1/agents/{agent_id}/keys", {
    params: { path: { agent_id: agent.id } },
    body: { name: "bot" },
  });
  return { agent, bot: new Corridor({ apiKey: key.secret ?? "", baseUrl: corridor.baseUrl }) };
}
