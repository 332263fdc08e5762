/* kinds.c - the handlers compiled into this build, and their registration in an engine. */
#include "kinds/internal.h"

/* One entry per kind with a handler (porep.c, post.c, snap.c). */
static const eng_kind_ops *const builtin[ENG_KIND_COUNT] = {
    [ENG_KIND_POREP] = &eng_porep_ops,
    [ENG_KIND_SNAP] = &eng_snap_ops,
    [ENG_KIND_WINDOW_POST] = &eng_window_post_ops,
    [ENG_KIND_WINNING_POST] = &eng_winning_post_ops,
};

const eng_kind_ops *eng_builtin_kind_ops(eng_kind kind)
{
    return (unsigned)kind < ENG_KIND_COUNT ? builtin[kind] : NULL;
}

cuzk_err eng_register_builtin_kinds(eng_t *eng, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;

    for (int kind = ENG_KIND_UNSPECIFIED + 1; kind < ENG_KIND_COUNT; kind++) {
        if (builtin[kind]) {
            CZ_TRY(err, eng_register_kind(eng, (eng_kind)kind, builtin[kind], NULL, dg), done);
        }
    }
done:
    return err;
}
