/* tui_keys: what each key does, per mode (main screen, help, export
 * prompt, overwrite question). */
#include "tui_impl.h"

#include <curses.h>
#include <string.h>
#include <sys/stat.h>

#include "text.h"
#include "units.h"

#define CTRL(c) ((c) & 0x1f)

/* Returns tui_knob_step's answer: > 0 when the knob moved. */
static int knob(struct tui *t, enum tui_knob k, int dir, const char *what)
{
    t->msg_kind = MSG_NONE;
    int r = tui_knob_step(t, k, dir);
    if (r == 0)
        tui_message(t, MSG_INFO, "%s: already at its %s", what, dir > 0 ? "largest" : "smallest");
    t->dirty = true;
    return r;
}

static const struct plan *shown_plan(const struct tui *t)
{
    return t->rows[tui_shown_row(t)].plan;
}

static void layer_move(struct tui *t, int to)
{
    int L = t->cur->pb->L;
    const struct plan *pl = shown_plan(t);
    if (pl && pl->L < L)
        L = pl->L;
    t->layer = to < 0 ? 0 : to >= L ? L - 1 : to;
    t->dirty = true;
}

/* Next layer (dir > 0) or previous one on another GPU than the cursor's. */
static void layer_jump(struct tui *t, int dir)
{
    const struct plan *pl = shown_plan(t);
    if (!pl || t->layer >= pl->L)
        return;
    int i = t->layer, g = pl->gpu[i];
    if (dir > 0) {
        while (i < pl->L - 1 && pl->gpu[i] == g)
            i++;
    } else {
        /* to the previous change: the first layer of this run, or from
         * there the first of the run before, as > stops at the next */
        if (i > 0 && pl->gpu[i - 1] != g) {
            i--;
            g = pl->gpu[i];
        }
        while (i > 0 && pl->gpu[i - 1] == g)
            i--;
    }
    layer_move(t, i);
}

static void row_move(struct tui *t, int dir)
{
    int i = tui_shown_row(t);
    t->sel = ((i + dir) % t->nrows + t->nrows) % t->nrows;
    t->dirty = true;
}

static void export_commit(struct tui *t, bool force)
{
    char path[sizeof t->input + 256];
    tui_path_expand(t->input, path, sizeof path);
    if (!force) {
        struct stat st;
        /* a directory is refused below, not offered to be overwritten */
        if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
            t->mode = MODE_CONFIRM;
            curs_set(0);
            t->dirty = true;
            return;
        }
    }
    tui_export_write(t, path, force);
    tui_export_end(t);
    t->mode = MODE_MAIN;
    curs_set(0);
    t->dirty = true;
}

/* S: the split typed on the prompt line as your split, judged as
 * --split's would be. */
static void split_commit(struct tui *t)
{
    t->mode = MODE_MAIN;
    curs_set(0);
    char err[SPEC_ERR_LEN + 4200];
    if (tui_user_split(t, t->input, err, sizeof err) < 0) {
        text_breaks_blank(err);
        tui_message(t, MSG_ERROR, "%s", err);
        return;
    }
    t->sel = t->user;
    char typed[sizeof t->input];
    snprintf(typed, sizeof typed, "%s", t->input);
    text_breaks_blank(typed);
    tui_message(t, MSG_INFO, "judging your split %.80s%s (selected)", typed,
                strlen(typed) > 80 ? "..." : "");
}

/* p: load the plan file named on the prompt line as your plan. */
static void load_commit(struct tui *t)
{
    char path[sizeof t->input + 256];
    tui_path_expand(t->input, path, sizeof path);
    t->mode = MODE_MAIN;
    curs_set(0);
    char err[1024], note[512];
    if (tui_user_load(t, path, note, sizeof note, err, sizeof err) < 0) {
        tui_message(t, MSG_ERROR, "%s", err);
        return;
    }
    t->sel = t->user;
    if (note[0])
        tui_message(t, MSG_INFO, "loaded your plan (row \"%s\"): %s",
                    planner_title(planner_given()), note);
    else
        tui_message(t, MSG_INFO, "loaded your plan from %s (row \"%s\")", path,
                    planner_title(planner_given()));
}

/* Whether more input is already waiting (getch() does not block here). */
static bool input_pending(void)
{
    int c = getch();
    if (c == ERR)
        return false;
    ungetch(c);
    return true;
}

static void prompt_key(struct tui *t, int ch)
{
    /* A newline with more input right behind it is inside pasted text
     * (torchtitan's lists and DeepSpeed's parts span lines): kept, so the
     * paste is taken whole and a '#' comment in it ends at its line, as
     * in the file it came from (shown as a blank). One typed, or a
     * paste's last, commits. */
    if (t->prompt == PROMPT_SPLIT && (ch == '\n' || ch == '\r' || ch == KEY_ENTER) &&
        input_pending()) {
        if (t->input_len + 1 < sizeof t->input)
            t->input[t->input_len++] = '\n';
        else
            t->input_cut = true;
        t->input[t->input_len] = '\0';
        t->dirty = true;
        return;
    }
    /* A file name ends at its line: what a paste holds after it is not
     * keys to act on (a stress run's "GG" took two GPUs away) */
    if ((ch == '\n' || ch == '\r' || ch == KEY_ENTER) && input_pending())
        flushinp();
    switch (ch) {
    case 27:
    case CTRL('G'):
        if (t->prompt == PROMPT_LOAD || t->prompt == PROMPT_SPLIT) {
            t->mode = MODE_MAIN;
            curs_set(0);
            tui_message(t, MSG_INFO, "%s cancelled", t->prompt == PROMPT_LOAD ? "load" : "split");
            return;
        }
        tui_export_end(t);
        t->mode = MODE_MAIN;
        curs_set(0);
        tui_message(t, MSG_INFO, "export cancelled");
        return;
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (t->input_len == 0) {
            prompt_key(t, 27);
            return;
        }
        if (t->input_cut) {
            /* a cut line is another split or name than the one given */
            t->mode = MODE_MAIN;
            curs_set(0);
            tui_message(t, MSG_ERROR, "not taken: the line is longer than the %zu bytes the "
                        "prompt holds (%s)", sizeof t->input - 1,
                        t->prompt == PROMPT_SPLIT ? "give a long split with --split, or in a "
                        "plan file with p" : "give a shorter name");
            if (t->prompt == PROMPT_EXPORT)
                tui_export_end(t);
            return;
        }
        if (t->prompt == PROMPT_LOAD)
            load_commit(t);
        else if (t->prompt == PROMPT_SPLIT)
            split_commit(t);
        else
            export_commit(t, false);
        return;
    case KEY_BACKSPACE:
    case 127:
    case CTRL('H'):
        /* a whole UTF-8 character */
        while (t->input_len > 0 && ((unsigned char)t->input[--t->input_len] & 0xc0) == 0x80)
            ;
        break;
    case CTRL('U'):
        t->input_len = 0;
        t->input_cut = false;
        break;
    case CTRL('W'):
        while (t->input_len > 0 && t->input[t->input_len - 1] == '/')
            t->input_len--;
        while (t->input_len > 0 && t->input[t->input_len - 1] != '/')
            t->input_len--;
        break;
    default:
        if (ch >= 0x20 && ch < 0x100 && ch != 0x7f) {
            if (t->input_len + 1 < sizeof t->input)
                t->input[t->input_len++] = (char)ch;
            else
                t->input_cut = true;
        }
        break;
    }
    t->input[t->input_len] = '\0';
    t->dirty = true;
}

/* The export format chooser: a digit picks, arrows move, Enter takes the
 * highlighted one (json at first), Esc cancels. */
static void format_key(struct tui *t, int ch)
{
    int n = export_count();
    int pick = -1;
    switch (ch) {
    case 27:
    case CTRL('G'):
    case 'q':
        tui_export_end(t);
        t->mode = MODE_MAIN;
        tui_message(t, MSG_INFO, "export cancelled");
        return;
    case KEY_LEFT:
    case KEY_UP:
    case KEY_BTAB:
        t->format_sel = (t->format_sel + n - 1) % n;
        break;
    case KEY_RIGHT:
    case KEY_DOWN:
    case '\t':
        t->format_sel = (t->format_sel + 1) % n;
        break;
    case '\n':
    case '\r':
    case KEY_ENTER:
        pick = t->format_sel;
        break;
    default:
        if (ch >= '1' && ch <= '9' && ch - '1' < n)
            pick = ch - '1';
        break;
    }
    t->dirty = true;
    if (pick < 0)
        return;
    if (tui_export_format(t, export_format_at(pick)) < 0) {
        tui_export_end(t);
        t->mode = MODE_MAIN;
        return;
    }
    t->prompt = PROMPT_EXPORT;
    t->mode = MODE_PROMPT;
    curs_set(1);
}

static void confirm_key(struct tui *t, int ch)
{
    if (ch == 'y' || ch == 'Y') {
        export_commit(t, true);
    } else if (ch == 'n' || ch == 'N' || ch == 27 || ch == 'q') {
        /* back to the name, to pick another */
        t->mode = MODE_PROMPT;
        curs_set(1);
        t->dirty = true;
    }
}

static void help_key(struct tui *t, int ch)
{
    switch (ch) {
    case KEY_UP:
        if (t->help_top > 0)
            t->help_top--;
        break;
    case KEY_DOWN:
        t->help_top++;
        break;
    case KEY_PPAGE:
        t->help_top = t->help_top > LINES - 2 ? t->help_top - (LINES - 2) : 0;
        break;
    case KEY_NPAGE:
    case ' ':
        t->help_top += LINES - 2;
        break;
    default:
        t->mode = t->help_from;
        break;
    }
    t->dirty = true;
}

/* The frontier view: a cursor along its caps, Enter applies one; the
 * knobs that change the curves (not the cap: it is the axis) restart
 * them. q leaves the view: quitting from a view that computes in the
 * background would lose it to a reflex. */
static void frontier_key(struct tui *t, int ch)
{
    struct tui_frontier *f = &t->front;
    int n = f->fr.ncap;
    char b[32];
    switch (ch) {
    case 27:
    case 'F':
    case 'q':
    case 'Q':
        t->mode = MODE_MAIN;
        tui_frontier_pause(t);
        break;
    case CTRL('C'):
        t->quit = true;
        break;
    case '?':
    case KEY_F(1):
        t->help_from = MODE_FRONTIER;
        t->mode = MODE_HELP;
        t->help_top = 0;
        break;
    case KEY_LEFT:
    case 'h':
        if (f->cursor > 0)
            f->cursor--;
        break;
    case KEY_RIGHT:
    case 'l':
        if (f->cursor < n - 1)
            f->cursor++;
        break;
    case KEY_HOME:
    case KEY_FIND:
    case KEY_A1:
        f->cursor = 0;
        break;
    case KEY_END:
    case KEY_SELECT:
    case KEY_C1:
        f->cursor = n > 0 ? n - 1 : 0;
        break;
    case '\n':
    case '\r':
    case KEY_ENTER: {
        if (n == 0) {
            tui_message(t, MSG_INFO, "no caps yet: the range is still being computed");
            break;
        }
        if (!(f->fr.cap[f->cursor] <= (double)TUI_MAX_CAP)) {
            /* the frontier may reach past what the cap knob takes (and
             * past 64 bits): say so rather than apply a wrapped value */
            tui_message(t, MSG_INFO, "a cap of %s is beyond the largest the explorer sets "
                        "(4 TiB)", units_format_size(f->fr.cap[f->cursor], b, sizeof b));
            break;
        }
        uint64_t cap = (uint64_t)f->fr.cap[f->cursor];
        t->mode = MODE_MAIN;
        tui_frontier_pause(t);
        if (tui_cap_set(t, cap) == 0)
            tui_message(t, MSG_INFO, "the cap is already %.2f GiB", (double)cap / TUI_GIB);
        break;
    }
    case 'g': knob(t, KNOB_GPUS, -1, problem_gpu_word(t->cur->pb, true)); break;
    case 'G': knob(t, KNOB_GPUS, +1, problem_gpu_word(t->cur->pb, true)); break;
    case 'b': knob(t, KNOB_MICRO_BATCHES, -1, "micro-batches"); break;
    case 'B': knob(t, KNOB_MICRO_BATCHES, +1, "micro-batches"); break;
    case 's': knob(t, KNOB_SCHEDULE, +1, "schedule"); break;
    case 'c': knob(t, KNOB_LAYOUT, +1, "layout"); break;
    case CTRL('L'):
        clearok(curscr, TRUE);
        break;
    default:
        if (ch >= 0x20 && ch < 0x7f)
            tui_message(t, MSG_INFO, "'%c' does nothing in the frontier view; ? lists the keys",
                        ch);
        break;
    }
    t->dirty = true;
}

static void main_key(struct tui *t, int ch)
{
    switch (ch) {
    case 'q':
    case 'Q':
    case CTRL('C'):
        t->quit = true;
        break;
    case '?':
    case KEY_F(1):
        t->help_from = MODE_MAIN;
        t->mode = MODE_HELP;
        t->help_top = 0;
        t->dirty = true;
        break;
    case 'F':
        t->mode = MODE_FRONTIER;
        tui_frontier_resume(t, tui_frontier_points());
        t->dirty = true;
        break;
    case 'g': knob(t, KNOB_GPUS, -1, problem_gpu_word(t->cur->pb, true)); break;
    case 'G': knob(t, KNOB_GPUS, +1, problem_gpu_word(t->cur->pb, true)); break;
    case 'm': knob(t, KNOB_CAP, -1, "memory cap"); break;
    case 'M': knob(t, KNOB_CAP, +1, "memory cap"); break;
    case '{': knob(t, KNOB_GPU_CAP, -1, "this GPU's cap"); break;
    case '}': knob(t, KNOB_GPU_CAP, +1, "this GPU's cap"); break;
    case 'b': knob(t, KNOB_MICRO_BATCHES, -1, "micro-batches"); break;
    case 'B': knob(t, KNOB_MICRO_BATCHES, +1, "micro-batches"); break;
    case 's': knob(t, KNOB_SCHEDULE, +1, "schedule"); break;
    case 'c': knob(t, KNOB_LAYOUT, +1, "layout"); break;
    /* the ILP's own knobs are not on the knob line, and its line drops
     * their part where it is short of room: the new value in words */
    case 'k':
    case 'K':
        if (knob(t, KNOB_BLOCKS, ch == 'K' ? +1 : -1, "ILP blocks") > 0) {
            int nb = tui_blocks(t);
            if (nb >= t->cur->pb->L)
                tui_message(t, MSG_INFO, "ILP blocks: every layer");
            else
                tui_message(t, MSG_INFO, "ILP blocks: %d", nb);
        }
        break;
    case 't':
    case 'T':
        if (knob(t, KNOB_TIME_LIMIT, ch == 'T' ? +1 : -1, "ILP time limit") <= 0)
            break;
        if (t->opt.work_limit > 0)
            /* the search obeys the work limit alone: the change only
             * solves again, from the best plan */
            tui_message(t, MSG_INFO, "ILP limit: work %ld (--work-limit), not seconds; "
                        "solving again", t->opt.work_limit);
        else
            tui_message(t, MSG_INFO, "ILP time limit: %.0f s", t->set.time_limit);
        break;
    case 'u':
        t->msg_kind = MSG_NONE;
        tui_undo(t);
        break;
    case 'r':
        tui_reload(t, false);
        break;
    case 'R':
        tui_reload(t, true);
        break;
    case '[':
    case ']': {
        int P = t->cur->pb->P;
        t->gpu = ((t->gpu + (ch == ']' ? 1 : -1)) % P + P) % P;
        t->dirty = true;
        break;
    }
    case KEY_LEFT:
    case 'h':
        layer_move(t, t->layer - 1);
        break;
    case KEY_RIGHT:
    case 'l':
        layer_move(t, t->layer + 1);
        break;
    /* terminals disagree on Home and End: some send what terminfo calls
     * Find and Select, or the keypad's corners */
    case KEY_HOME:
    case KEY_FIND:
    case KEY_A1:
        layer_move(t, 0);
        break;
    case KEY_END:
    case KEY_SELECT:
    case KEY_C1:
        layer_move(t, t->cur->pb->L - 1);
        break;
    case KEY_PPAGE:
        layer_move(t, t->layer - (COLS > 12 ? COLS - 4 : 8));
        break;
    case KEY_NPAGE:
        layer_move(t, t->layer + (COLS > 12 ? COLS - 4 : 8));
        break;
    case '<':
        layer_jump(t, -1);
        break;
    case '>':
        layer_jump(t, +1);
        break;
    case KEY_UP:
    case KEY_BTAB:
        row_move(t, -1);
        break;
    case KEY_DOWN:
    case '\t':
        row_move(t, +1);
        break;
    case 'f':
        t->sel = -1;
        t->dirty = true;
        break;
    case 'e':
        if (tui_export_begin(t) == 0) {
            t->mode = MODE_FORMAT;
            t->format_sel = 0;
            for (int i = 0; i < export_count(); i++)
                if (strcmp(export_format_at(i)->name, "json") == 0)
                    t->format_sel = i;
            t->dirty = true;
        }
        break;
    case 'S':
        t->prompt = PROMPT_SPLIT;
        t->mode = MODE_PROMPT;
        t->input_len = 0;
        t->input_cut = false;
        if (t->user_split && strlen(t->user_split) < sizeof t->input)
            t->input_len = (size_t)snprintf(t->input, sizeof t->input, "%s", t->user_split);
        else if (t->user_split)
            tui_message(t, MSG_INFO, "your split is too long to edit here (%zu bytes): type "
                        "another, or Esc to keep it", strlen(t->user_split));
        t->input[t->input_len] = '\0';
        curs_set(1);
        t->dirty = true;
        break;
    case 'p':
        t->prompt = PROMPT_LOAD;
        t->mode = MODE_PROMPT;
        t->input_cut = false;
        t->input_len = (size_t)snprintf(t->input, sizeof t->input, "%s", t->last_plan);
        curs_set(1);
        t->dirty = true;
        break;
    case CTRL('L'):
        clearok(curscr, TRUE);
        t->dirty = true;
        break;
    case KEY_RESIZE:
        t->dirty = true;
        break;
    default:
        if (ch >= 0x20 && ch < 0x7f)
            tui_message(t, MSG_INFO, "'%c' does nothing here; ? lists the keys", ch);
        break;
    }
}

/* An escape sequence curses did not decode (its terminfo entry and the
 * terminal disagree, as xterm-256color and tmux do about Home and End):
 * read the rest so it never acts as the keys it is made of ("\e[4~" is
 * not "[" then "4"), and map the usual ones. Returns the key, 27 for a
 * lone Esc, or ERR for a sequence to ignore. An Esc with any other key
 * behind it (typed fast, or joined on a slow link; a resize) is an Esc,
 * and that key is read next, not lost. */
static int escape_decode(void)
{
    int c = getch();
    if (c == ERR)
        return 27;
    if (c != '[' && c != 'O') {
        ungetch(c);
        return 27;
    }
    int param = 0, nparams = 0;
    while ((c = getch()) != ERR && !(c >= 0x40 && c <= 0x7e)) {
        if (c >= '0' && c <= '9' && nparams == 0)
            param = param * 10 + (c - '0');
        else if (c == ';')
            nparams++;
    }
    switch (c) {
    case 'A': return KEY_UP;
    case 'B': return KEY_DOWN;
    case 'C': return KEY_RIGHT;
    case 'D': return KEY_LEFT;
    case 'H': return KEY_HOME;
    case 'F': return KEY_END;
    case 'Z': return KEY_BTAB;
    case '~':
        switch (param) {
        case 1: case 7: return KEY_HOME;
        case 4: case 8: return KEY_END;
        case 5: return KEY_PPAGE;
        case 6: return KEY_NPAGE;
        case 11: return KEY_F(1);
        default: return ERR;
        }
    case 'P':
        return KEY_F(1);
    default:
        return ERR;
    }
}

void tui_key(struct tui *t, int ch)
{
    if (ch == KEY_RESIZE) {
        t->dirty = true;
        return;
    }
    if (ch == 27 && (ch = escape_decode()) == ERR)
        return;
    /* the screen says only "too small (q quits)": no key acts unseen */
    if (tui_too_small()) {
        if (ch == 'q' || ch == 'Q')
            t->quit = true;
        return;
    }
    switch (t->mode) {
    case MODE_HELP: help_key(t, ch); break;
    case MODE_PROMPT: prompt_key(t, ch); break;
    case MODE_CONFIRM: confirm_key(t, ch); break;
    case MODE_FORMAT: format_key(t, ch); break;
    case MODE_FRONTIER:
        if (t->msg_kind != MSG_NONE)
            t->msg_kind = MSG_NONE;
        frontier_key(t, ch);
        break;
    default:
        /* a message lasts until the next key */
        if (t->msg_kind != MSG_NONE) {
            t->msg_kind = MSG_NONE;
            t->dirty = true;
        }
        main_key(t, ch);
        break;
    }
}
