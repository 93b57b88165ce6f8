// The rule set in words, as the server sends it (the engine's summary,
// engine/summary.py): this module only lays the sentences out and words no rule.
import { h } from "./util.js";

/** List items for a served summary: [{topic, sentence}, ...]. */
export function summaryItems(summary) {
  return (summary || []).map((s) => h("li", {}, h("strong", {}, `${s.topic}: `), s.sentence));
}
