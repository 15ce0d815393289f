/* draw_cache: hands back what cairo and fontconfig keep for the whole process (font
 * caches, static surfaces) so that a command that drew pictures ends with nothing still
 * allocated and valgrind's leak check stays clean. Call once, after the last drawing. */
#ifndef TMASCOPE_DRAW_CACHE_H
#define TMASCOPE_DRAW_CACHE_H

void draw_release_caches(void);

#endif
