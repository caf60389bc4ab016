/* fuzz_schedule: a torch-schedule CSV as pipeplan check reads it
 * (torch_schedule_is, then torch_schedule_read: the layout torch's
 * _load_csv takes, the cells, the counts they imply and the replay of
 * torch_schedule_validate). A refusal says why; a schedule accepted is
 * accepted again, and by the validator alone at its counts, never at one
 * stage or micro-batch more (an F and a B would be missing). The
 * schedules the program exports for fuzz_problem.h's problems must be
 * accepted, with the stages and ranks the export names. */
#include "fuzz.h"
#include "fuzz_problem.h"
#include "plan.h"
#include "schedule.h"
#include "text.h"
#include "torch_export.h"

/* Each problem's layers on its GPUs in runs, and dealt round-robin (two
 * runs a GPU: a V-shaped or looped split), scheduled and exported. */
static void exports_check(void)
{
    for (int k = 0; k < FUZZ_PROBLEMS; k++)
        for (int how = 0; how < 2; how++) {
            const struct problem *pb = fuzz_problem(k);
            struct plan *pl = plan_new(pb->L, pb->P);
            FUZZ_ASSERT(pl, "plan_new");
            for (int i = 0; i < pb->L; i++)
                pl->gpu[i] = how ? i % pb->P : i * pb->P / pb->L;
            FUZZ_ASSERT(schedule_build(pl, pb) == 0, "problem %d: no schedule", k);
            char *out = NULL, err[SPEC_ERR_LEN];
            size_t len = 0;
            FILE *f = open_memstream(&out, &len);
            FUZZ_ASSERT(f, "open_memstream");
            int rc = torch_export_schedule(f, pb, pl, err, sizeof err);
            FUZZ_ASSERT(fclose(f) == 0, "fclose");
            FUZZ_ASSERT(rc == 0, "problem %d: export: %s", k, err);
            int S, R, m, line;
            FUZZ_ASSERT(torch_schedule_is(out, "exported"), "problem %d: not a schedule", k);
            FUZZ_ASSERT(torch_schedule_read(out, &S, &R, &m, &line, err, sizeof err) == 0,
                        "problem %d, allocation %d: the export refused at line %d: %s\n%s", k,
                        how, line, err, out);
            FUZZ_ASSERT(S == torch_stage_count(pl) && R == torch_rank_count(pl) && m == pb->m,
                        "problem %d: %d stages, %d ranks, %d micro-batches read", k, S, R, m);
            free(out);
            plan_free(pl);
        }
}

/* A section or a comment first, after a BOM and blank space. */
static bool spec_like(const char *text)
{
    const char *p = text_skip_bom(text);
    p += strspn(p, " \t\r\n");
    return *p == '[' || *p == ';' || *p == '#';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int exported;
    if (!exported++)
        exports_check();
    char *text = fuzz_text(data, size);
    /* check's choice: under a .csv name anything but a spec file's start */
    (void)torch_schedule_is(text, "fuzz");
    FUZZ_ASSERT(torch_schedule_is(text, "fuzz.csv") == !spec_like(text), "a .csv name");
    char err[SPEC_ERR_LEN];
    int S = -1, R = -1, m = -1, line = -1;
    err[0] = '\0';
    int rc = torch_schedule_read(text, &S, &R, &m, &line, err, sizeof err);
    FUZZ_ASSERT(rc == 0 || rc == -1, "returned %d", rc);
    if (rc < 0) {
        FUZZ_ASSERT(err[0], "no message");
        FUZZ_ASSERT(line >= 0, "line %d", line);
        free(text);
        return 0;
    }
    FUZZ_ASSERT(S >= 1 && R >= 1 && m >= 1, "%d stages, %d ranks, %d micro-batches", S, R, m);
    int S2, R2, m2, line2;
    FUZZ_ASSERT(torch_schedule_read(text, &S2, &R2, &m2, &line2, err, sizeof err) == 0 &&
                S2 == S && R2 == R && m2 == m, "read again: %s", err);
    /* the rows as check hands them to the validator: no last line break */
    size_t n = strlen(text);
    if (n > 0 && text[n - 1] == '\n')
        text[--n] = '\0';
    if (n > 0 && text[n - 1] == '\r')
        text[--n] = '\0';
    FUZZ_ASSERT(torch_schedule_validate(text, S, R, m, err, sizeof err) == 0,
                "validated alone: %s", err);
    FUZZ_ASSERT(torch_schedule_validate(text, S + 1, R, m, err, sizeof err) < 0 && err[0],
                "valid with a stage more");
    FUZZ_ASSERT(torch_schedule_validate(text, S, R, m + 1, err, sizeof err) < 0 && err[0],
                "valid with a micro-batch more");
    free(text);
    return 0;
}
