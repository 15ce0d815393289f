/* The SDL2 window: SDL events -> view_session input, cairo frame -> window surface.
 * Scripted input is pushed into SDL's own event queue, so a script exercises exactly
 * the path that a person's mouse and keyboard take. */
#include <SDL.h>
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw_file.h"
#include "draw_timeline.h"
#include "tmaview_app.h"

typedef struct app {
    view_session *s;
    SDL_Window *win;
    Uint32 win_id;
    cairo_surface_t *canvas;
    int searching;
    char search[128];
    FILE *script;
    int script_line;
    int wait_frames;
    int fixed_dt;
} app;

static int save_window_png(app *a, const char *path)
{
    SDL_Surface *ws = SDL_GetWindowSurface(a->win);
    if (!ws) return -1;
    SDL_Surface *conv = SDL_ConvertSurfaceFormat(ws, SDL_PIXELFORMAT_ARGB8888, 0);
    if (!conv) return -1;
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, conv->w, conv->h);
    unsigned char *dst = cairo_image_surface_get_data(img);
    int dstride = cairo_image_surface_get_stride(img);
    SDL_LockSurface(conv);
    for (int y = 0; y < conv->h; y++) memcpy(dst + (size_t)y * dstride, (unsigned char *)conv->pixels + (size_t)y * conv->pitch, (size_t)conv->w * 4);
    SDL_UnlockSurface(conv);
    cairo_surface_mark_dirty(img);
    SDL_FreeSurface(conv);
    afile f;
    err_info e = {0};
    if (afile_open(&f, path, "--screenshot", &e)) {
        cairo_surface_destroy(img);
        return -1;
    }
    return draw_file_finish(img, 1, &f, NULL, "--screenshot", &e) ? -1 : 0;
}

static void frame(app *a)
{
    view_session *s = a->s;
    SDL_Surface *ws = SDL_GetWindowSurface(a->win);
    if (!ws) return;
    if (ws->w != s->px_w || ws->h != s->px_h) view_session_resize(s, ws->w, ws->h);
    if (!a->canvas || cairo_image_surface_get_width(a->canvas) != s->px_w ||
        cairo_image_surface_get_height(a->canvas) != s->px_h) {
        if (a->canvas) cairo_surface_destroy(a->canvas);
        a->canvas = cairo_image_surface_create(CAIRO_FORMAT_RGB24, s->px_w, s->px_h);
    }
    cairo_t *cr = cairo_create(a->canvas);
    draw_timeline(cr, s);
    cairo_scale(cr, s->scale, s->scale);
    if (a->searching) {
        char buf[200];
        snprintf(buf, sizeof buf, "search: %s_", a->search);
        cairo_set_source_rgb(cr, 1, 1, 0.85);
        cairo_rectangle(cr, s->g.tl_x, s->g.height - s->g.strip_h - 22, 420, 20);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_set_font_size(cr, 12);
        cairo_move_to(cr, s->g.tl_x + 6, s->g.height - s->g.strip_h - 8);
        cairo_show_text(cr, buf);
    }
    cairo_destroy(cr);
    cairo_surface_flush(a->canvas);
    SDL_Surface *src = SDL_CreateRGBSurfaceWithFormatFrom(
        cairo_image_surface_get_data(a->canvas), s->px_w, s->px_h, 32,
        cairo_image_surface_get_stride(a->canvas), SDL_PIXELFORMAT_ARGB8888);
    if (src) {
        SDL_SetSurfaceBlendMode(src, SDL_BLENDMODE_NONE);
        SDL_BlitSurface(src, NULL, ws, NULL);
        SDL_FreeSurface(src);
    }
    SDL_UpdateWindowSurface(a->win);
}

static int key_of(SDL_Keycode k, int shift)
{
    switch (k) {
    case SDLK_UP: return VIEW_KEY_UP;
    case SDLK_DOWN: return VIEW_KEY_DOWN;
    case SDLK_PAGEUP: return VIEW_KEY_PAGE_UP;
    case SDLK_PAGEDOWN: return VIEW_KEY_PAGE_DOWN;
    case SDLK_ESCAPE: return VIEW_KEY_ESCAPE;
    case SDLK_LEFT: return 'a';
    case SDLK_RIGHT: return 'd';
    case SDLK_EQUALS:
    case SDLK_PLUS:
    case SDLK_KP_PLUS: return '+';
    case SDLK_MINUS:
    case SDLK_KP_MINUS: return '-';
    default:
        if (k >= 'a' && k <= 'z') return shift ? k - 32 : (int)k;
        if (k == ' ' || (k >= '0' && k <= '9') || k == '/' || k == '[' || k == ']') return (int)k;
        return 0;
    }
}

static void handle(app *a, const SDL_Event *ev)
{
    view_session *s = a->s;
    double inv = 1 / s->scale;   /* window pixels -> the session's logical pixels */
    switch (ev->type) {
    case SDL_QUIT: s->quit = 1; break;
    case SDL_KEYDOWN: {
        SDL_Keycode k = ev->key.keysym.sym;
        int shift = (ev->key.keysym.mod & KMOD_SHIFT) != 0;
        if (a->searching) {
            if (k == SDLK_RETURN || k == SDLK_KP_ENTER) {
                a->searching = 0;
                SDL_StopTextInput();
                view_session_search(s, a->search, NULL);
            } else if (k == SDLK_ESCAPE) {
                a->searching = 0;
                SDL_StopTextInput();
            } else if (k == SDLK_BACKSPACE && a->search[0]) {
                a->search[strlen(a->search) - 1] = 0;
            }
            break;
        }
        int key = key_of(k, shift);
        if (ev->key.keysym.mod & KMOD_CTRL)   /* ctrl +, ctrl -, ctrl 0: presentation scale */
            key = key == '+' ? VIEW_KEY_SCALE_UP : key == '-' ? VIEW_KEY_SCALE_DOWN : key == '0' ? VIEW_KEY_SCALE_RESET : 0;
        if (key == '/') {
            a->searching = 1;
            a->search[0] = 0;
            SDL_StartTextInput();
        } else if (key) {
            view_session_key(s, key, shift);
        }
        break;
    }
    case SDL_TEXTINPUT:
        if (a->searching && strlen(a->search) + strlen(ev->text.text) < sizeof a->search)
            strcat(a->search, ev->text.text);
        break;
    case SDL_MOUSEMOTION: view_session_motion(s, ev->motion.x * inv, ev->motion.y * inv); break;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
        view_session_button(s, ev->button.x * inv, ev->button.y * inv, ev->button.button == SDL_BUTTON_RIGHT ? 3 : 1,
                            ev->type == SDL_MOUSEBUTTONDOWN, (SDL_GetModState() & KMOD_SHIFT) != 0);
        break;
    case SDL_MOUSEWHEEL: view_session_wheel(s, s->mouse_x, s->mouse_y, ev->wheel.y); break;
    default: break;
    }
}

/* ---- scripted input ---------------------------------------------------------------- */
static void push(app *a, SDL_Event *ev)
{
    switch (ev->type) {
    case SDL_KEYDOWN: ev->key.windowID = a->win_id; break;
    case SDL_MOUSEMOTION: ev->motion.windowID = a->win_id; break;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP: ev->button.windowID = a->win_id; break;
    case SDL_MOUSEWHEEL: ev->wheel.windowID = a->win_id; break;
    case SDL_TEXTINPUT: ev->text.windowID = a->win_id; break;
    default: break;
    }
    SDL_PushEvent(ev);
}

static void push_motion(app *a, int x, int y, int held)
{
    SDL_Event ev = {0};
    ev.type = SDL_MOUSEMOTION;
    ev.motion.x = x;
    ev.motion.y = y;
    ev.motion.state = held ? SDL_BUTTON_LMASK : 0;
    push(a, &ev);
}

static void push_button(app *a, int x, int y, int button, int down)
{
    SDL_Event ev = {0};
    ev.type = down ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEBUTTONUP;
    ev.button.x = x;
    ev.button.y = y;
    ev.button.button = (Uint8)(button == 3 ? SDL_BUTTON_RIGHT : SDL_BUTTON_LEFT);
    ev.button.state = down ? SDL_PRESSED : SDL_RELEASED;
    ev.button.clicks = 1;
    push(a, &ev);
}

static void push_key(app *a, SDL_Keycode k, Uint16 mod)
{
    SDL_Event ev = {0};
    ev.type = SDL_KEYDOWN;
    ev.key.state = SDL_PRESSED;
    ev.key.keysym.sym = k;
    ev.key.keysym.mod = mod;
    push(a, &ev);
}

static SDL_Keycode keycode_of(const char *name, Uint16 *mod)
{
    *mod = 0;
    if (!strncmp(name, "ctrl+", 5) && name[5]) {
        SDL_Keycode k = keycode_of(name + 5, mod);
        *mod |= KMOD_LCTRL;
        return k;
    }
    if (!strcmp(name, "space")) return SDLK_SPACE;
    if (!strcmp(name, "up")) return SDLK_UP;
    if (!strcmp(name, "down")) return SDLK_DOWN;
    if (!strcmp(name, "pageup")) return SDLK_PAGEUP;
    if (!strcmp(name, "pagedown")) return SDLK_PAGEDOWN;
    if (!strcmp(name, "escape")) return SDLK_ESCAPE;
    if (!strcmp(name, "plus")) return SDLK_PLUS;
    if (!strcmp(name, "minus")) return SDLK_MINUS;
    if (strlen(name) == 1 && name[0] >= 'A' && name[0] <= 'Z') {
        *mod = KMOD_LSHIFT;
        return name[0] + 32;
    }
    if (strlen(name) == 1 && ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= '0' && name[0] <= '9') ||
                              name[0] == '/' || name[0] == '[' || name[0] == ']'))
        return name[0];
    return SDLK_UNKNOWN;
}

/* Runs script lines until one that must wait for frames; returns -1 on a bad line. */
static int script_step(app *a)
{
    char line[512];
    while (a->wait_frames == 0 && fgets(line, sizeof line, a->script)) {
        a->script_line++;
        line[strcspn(line, "\r\n")] = 0;
        char cmd[32] = "";
        int x0, y0, x1, y1, b = 1, n;
        double dy;
        if (sscanf(line, "%31s", cmd) != 1 || cmd[0] == '#') continue;
        const char *rest = line + strspn(line, " \t") + strlen(cmd);
        rest += strspn(rest, " \t");
        if (!strcmp(cmd, "key")) {
            Uint16 mod;
            SDL_Keycode k = keycode_of(rest, &mod);
            if (k == SDLK_UNKNOWN) goto bad;
            push_key(a, k, mod);
        } else if (!strcmp(cmd, "move") && sscanf(rest, "%d %d", &x0, &y0) == 2) {
            push_motion(a, x0, y0, 0);
        } else if (!strcmp(cmd, "click") && sscanf(rest, "%d %d %d", &x0, &y0, &b) >= 2) {
            push_motion(a, x0, y0, 0);
            push_button(a, x0, y0, b, 1);
            push_button(a, x0, y0, b, 0);
        } else if (!strcmp(cmd, "drag") && sscanf(rest, "%d %d %d %d %d", &x0, &y0, &x1, &y1, &b) >= 4) {
            push_motion(a, x0, y0, 0);
            push_button(a, x0, y0, b, 1);
            for (int i = 1; i <= 8; i++) push_motion(a, x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8, 1);
            push_button(a, x1, y1, b, 0);
        } else if (!strcmp(cmd, "wheel") && sscanf(rest, "%d %d %lf", &x0, &y0, &dy) == 3) {
            push_motion(a, x0, y0, 0);
            SDL_Event ev = {0};
            ev.type = SDL_MOUSEWHEEL;
            ev.wheel.y = (Sint32)dy;
            push(a, &ev);
        } else if (!strcmp(cmd, "search") && *rest) {
            push_key(a, '/', 0);
            /* a text event holds 31 bytes: longer queries arrive in pieces, as typing does */
            for (size_t off = 0, len = strlen(rest); off < len;) {
                SDL_Event ev = {0};
                ev.type = SDL_TEXTINPUT;
                size_t piece = len - off < sizeof ev.text.text - 1 ? len - off : sizeof ev.text.text - 1;
                memcpy(ev.text.text, rest + off, piece);
                push(a, &ev);
                off += piece;
            }
            push_key(a, SDLK_RETURN, 0);
        } else if (!strcmp(cmd, "wait") && sscanf(rest, "%d", &n) == 1 && n >= 0) {
            a->wait_frames = n;
        } else if (!strcmp(cmd, "screenshot") && *rest) {
            /* taken after the events queued so far have been handled and drawn */
            SDL_Event ev = {0};
            ev.type = SDL_USEREVENT;
            ev.user.data1 = strdup(rest);
            SDL_PushEvent(&ev);
            a->wait_frames = 1;
        } else if (!strcmp(cmd, "quit")) {
            SDL_Event ev = {0};
            ev.type = SDL_QUIT;
            SDL_PushEvent(&ev);
            return 0;
        } else {
            goto bad;
        }
    }
    return 0;
bad:
    fprintf(stderr, "tmaview: --script: line %d: '%s' is not one of: key K, move X Y, click X Y [B], "
                    "drag X0 Y0 X1 Y1 [B], wheel X Y DY, search QUERY, wait N, screenshot PATH, quit\n",
            a->script_line, line);
    return -1;
}

int tmaview_window(view_session *s, const tmaview_opts *o)
{
    /* Without a display SDL falls back to drivers that open no visible window and the
     * event loop would wait forever: say so instead, unless a driver was asked for. */
    const char *x11 = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY"), *drv = getenv("SDL_VIDEODRIVER");
    if ((!x11 || !*x11) && (!wl || !*wl) && (!drv || !*drv)) {
        fprintf(stderr, "tmaview: no display: DISPLAY and WAYLAND_DISPLAY are unset (use --render FILE.png to draw "
                        "without a window)\n");
        return 2;
    }
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "tmaview: display: %s (use --render FILE without a display)\n", SDL_GetError());
        return 2;
    }
    app a = {.s = s};
    a.win = SDL_CreateWindow("tmaview", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED, o->width, o->height,
                             SDL_WINDOW_RESIZABLE);
    if (!a.win) {
        fprintf(stderr, "tmaview: window: %s\n", SDL_GetError());
        SDL_Quit();
        return 2;
    }
    a.win_id = SDL_GetWindowID(a.win);
    int rc = 0;
    if (o->script) {
        a.script = fopen(o->script, "r");
        if (!a.script) {
            fprintf(stderr, "tmaview: --script: cannot read %s\n", o->script);
            rc = 2;
            s->quit = 1;
        }
        a.fixed_dt = 1;   /* scripted runs advance play mode by exactly 1/60 s per frame */
    }
    Uint64 last = SDL_GetPerformanceCounter();
    int script_done = !a.script;
    int frames = 0;
    while (!s->quit) {
        SDL_Event ev;
        while (SDL_PollEvent(&ev)) {
            if (ev.type == SDL_USEREVENT) {
                frame(&a);
                if (save_window_png(&a, ev.user.data1)) {
                    fprintf(stderr, "tmaview: screenshot: cannot write %s\n", (char *)ev.user.data1);
                    rc = 2;
                }
                free(ev.user.data1);
                continue;
            }
            handle(&a, &ev);
        }
        Uint64 now = SDL_GetPerformanceCounter();
        double dt = a.fixed_dt ? 1.0 / 60 : (double)(now - last) / SDL_GetPerformanceFrequency();
        last = now;
        view_session_tick(s, dt);
        frame(&a);
        frames++;
        if (a.wait_frames > 0) a.wait_frames--;
        if (!script_done && a.wait_frames == 0) {
            if (script_step(&a)) {
                rc = 2;
                break;
            }
            if (feof(a.script) && a.wait_frames == 0) script_done = 1;
        } else if (script_done && a.script && !SDL_PeepEvents(NULL, 0, SDL_PEEKEVENT, SDL_FIRSTEVENT, SDL_LASTEVENT)) {
            break;   /* the script has run out and its events are handled */
        }
        if (o->screenshot && !a.script && frames >= 2) break;
        if (!a.script) SDL_Delay(s->playing ? 1 : 10);
    }
    if (o->screenshot && rc == 0) {
        frame(&a);
        if (save_window_png(&a, o->screenshot)) {
            fprintf(stderr, "tmaview: --screenshot: cannot write %s\n", o->screenshot);
            rc = 2;
        }
    }
    if (a.script) fclose(a.script);
    if (a.canvas) cairo_surface_destroy(a.canvas);
    SDL_DestroyWindow(a.win);
    SDL_Quit();
    return rc;
}
