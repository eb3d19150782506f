/* reef_chainer.h -- the chainer Reef bot, reef_bot.c's strongest level.
 *
 * reef_bot_choose(REEF_BOT_CHAINER, ...) is how callers reach it; this
 * header only lets reef_bot.c dispatch to the module that implements it
 * (reef_chainer.c explains the design). */
#ifndef TESSERA_REEF_CHAINER_H
#define TESSERA_REEF_CHAINER_H

#include "engine/reef.h"

/* Chooses a legal action for a running (not ended) `state` into *action.
 * Returns 0. */
int reef_chainer_choose(const reef_state *state, reef_action *action);

#endif
