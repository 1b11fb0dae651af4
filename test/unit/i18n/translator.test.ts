import { describe, expect, it } from "vitest";
import { createTranslator } from "#src/i18n/index.js";
import { silentLogger } from "#src/log/logger.js";

describe("the translator", () => {
  it("keeps one t per language whose plain keys read the same as i18next's, options still interpolated", async () => {
    const translator = await createTranslator({ logger: silentLogger() });
    const en = translator.t("en");
    const yo = translator.t("yo");
    expect(translator.t("en")).toBe(en);
    const i18n = translator.i18n;
    for (const key of ["common:menu_button", "common:cancel_button", "common:welcome"]) {
      expect(en(key)).toBe(i18n.getFixedT("en")(key));
      expect(en(key)).toBe(en(key));
      expect(yo(key)).toBe(i18n.getFixedT("yo")(key));
    }
    expect(yo("common:menu_button")).not.toBe(en("common:menu_button"));
    // The same key with options is interpolated on every call, not served from the plain text.
    expect(en("common:welcome", { name: "Ada" })).toContain("Hi Ada");
    expect(en("common:welcome", { name: "Bola" })).toContain("Hi Bola");
    expect(en("common:welcome")).not.toContain("Ada");
  });
});
