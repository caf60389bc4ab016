/* fuzz_planfile: the plan-file reader (planfile_parse, what --plan FILE
 * and the explorer's p run), against three problems. A plan it accepts
 * must be written back by planfile_write and read again as the same
 * plan (the round trip planfile.h promises). */
#include <math.h>

#include "fuzz.h"
#include "fuzz_problem.h"
#include "plan.h"
#include "planfile.h"

static void round_trip(const struct plan *pl, const struct problem *pb)
{
    char *out = NULL, err[SPEC_ERR_LEN];
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    FUZZ_ASSERT(f, "open_memstream");
    FUZZ_ASSERT(planfile_write(f, pb, pl, "fuzz") == 0, "write");
    FUZZ_ASSERT(fclose(f) == 0, "fclose");
    struct plan *back = planfile_parse(out, "written.plan", pb, NULL, 0, err, sizeof err);
    FUZZ_ASSERT(back, "an accepted plan does not read back: %s", err);
    FUZZ_ASSERT(back->T == pl->T, "period %.17g read back as %.17g", pl->T, back->T);
    for (int i = 0; i < pl->L; i++)
        FUZZ_ASSERT(back->gpu[i] == pl->gpu[i], "layer %d GPU", i);
    for (int o = 0; o < 2 * pl->L; o++)
        FUZZ_ASSERT(back->start[o] == pl->start[o], "start %d: %.17g read back as %.17g", o,
                    pl->start[o], back->start[o]);
    plan_free(back);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    for (int k = 0; k < FUZZ_PROBLEMS; k++) {
        const struct problem *pb = fuzz_problem(k);
        char err[SPEC_ERR_LEN];
        err[0] = '\0';
        struct plan *pl = planfile_parse(text, "fuzz.plan", pb, NULL, 0, err, sizeof err);
        if (!pl) {
            FUZZ_ASSERT(strncmp(err, "fuzz.plan:", 10) == 0, "message '%s'", err);
            continue;
        }
        FUZZ_ASSERT(pl->L == pb->L && pl->P == pb->P, "shape");
        FUZZ_ASSERT(isfinite(pl->T) && pl->T > 0, "period %g", pl->T);
        for (int i = 0; i < pl->L; i++)
            FUZZ_ASSERT(pl->gpu[i] >= 0 && pl->gpu[i] < pb->P, "layer %d on GPU %d", i,
                        pl->gpu[i]);
        round_trip(pl, pb);
        plan_free(pl);
    }
    free(text);
    return 0;
}
