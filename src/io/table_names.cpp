// Names that blocks carry as English keys (row and column axes, slice axes, block names)
// and that tables translate when they show them (format_table.cpp looks each one up with
// tr_runtime). Most are marked N_ where they are set; the ones passed through helper functions
// as plain arguments are marked here once, so scripts/update-po.sh extracts them.
#include "tfx/core/i18n.hpp"

namespace tfx {

[[maybe_unused]] const char* const kTableNames[] = {
    N_("token"), N_("dim"),    N_("query"),  N_("key"),       N_("in"),     N_("out"),      N_("head"),
    N_("layer"), N_("pos"),    N_("i"),      N_("position"),  N_("word"),   N_("vocabulary"), N_("id"),
    N_("row"),   N_("column"), N_("value"),  N_("index"),     N_("pair"),   N_("step"),     N_("feature"),
    N_("additive"), N_("mha_bool"), N_("sdpa_bool"), N_("unit"),
};

}  // namespace tfx
