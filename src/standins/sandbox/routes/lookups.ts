import type { Core } from "#src/standins/sandbox/core.js";
import { ZA_BANKS } from "#src/standins/sandbox/domain/banks.js";
import { checkNameEnquiryRate, lookupName } from "#src/standins/sandbox/domain/nameenquiry.js";
import { badRequest } from "#src/standins/sandbox/http/errors.js";
import type { Router } from "#src/standins/sandbox/http/router.js";
import { API_PREFIX } from "#src/standins/sandbox/http/server.js";
import { FIATS, type Fiat } from "#src/standins/sandbox/units.js";
import { ok } from "./helpers.ts";

/** Bank list, name enquiry and spot price. */
export function registerLookupRoutes(router: Router, core: Core): void {
  const api = (path: string) => `${API_PREFIX}${path}`;

  // The spec requires a key; the real service serves this without one and real clients send none (notes §2, §11).
  router.add("GET", api("/bank/bankcode"), "public", (request) => {
    const country = (request.query.get("country") ?? "").trim().toUpperCase();
    if (country === "NG") return ok(core.banks.ngn, "all bank codes retrieved successfully");
    if (country === "ZA") return ok(ZA_BANKS, "all bank codes");
    throw badRequest("Invalid country code");
  });

  router.add("GET", api("/bank/name-enquiry"), "key", (request) => {
    const accountNumber = (request.query.get("accountNumber") ?? "").trim();
    const bankCode = (request.query.get("bankCode") ?? "").trim();
    if (!accountNumber) throw badRequest("accountNumber is required");
    if (!bankCode) throw badRequest("bankCode is required");
    checkNameEnquiryRate(core);
    return ok(lookupName(core, accountNumber, bankCode), "Bank account name verified successfully");
  });

  // Keyless, as in the spec's examples and the real service.
  router.add("GET", api("/price"), "public", (request) => {
    const currency = (request.query.get("currency") ?? "").trim().toUpperCase();
    if (!(FIATS as readonly string[]).includes(currency)) {
      throw badRequest(`Invalid currency: use one of ${FIATS.join(", ")}`);
    }
    return ok(core.pricing.priceView(currency as Fiat, core.clock.now()));
  });

  // The newer docs' form of the same lookup (notes §3, §5): `pair` is BTC<FIAT> (BTCNGN), also BTC/NGN or BTC-NGN.
  router.add("GET", api("/price/ticker"), "public", (request) => {
    const pair = (request.query.get("pair") ?? "").trim().toUpperCase().replace(/[-_/]/g, "");
    const fiat = FIATS.find((candidate) => pair === `BTC${candidate}`);
    if (!fiat) throw badRequest(`Invalid pair: use one of ${FIATS.map((f) => `BTC${f}`).join(", ")}`);
    return ok({ pair: `BTC${fiat}`, ...core.pricing.priceView(fiat, core.clock.now()) });
  });
}
