/**
 * @file cradle.h
 * @brief Umbrella header of libcradle: multiple impacts in mechanics. One
 * public header per module, listed bottom to top as the library's layers
 * (docs/design.md, "Folders"); cradle/engine.h, for writers of engines, is
 * not included.
 */
#ifndef CRADLE_CRADLE_H
#define CRADLE_CRADLE_H

#include "cradle/common.h"
#include "cradle/contact.h"
#include "cradle/model.h"
#include "cradle/modelfile.h"
#include "cradle/laws.h"
#include "cradle/lawcase.h"
#include "cradle/event.h"
#include "cradle/system.h"
#include "cradle/rigid.h"
#include "cradle/monitor.h"
#include "cradle/calibrate.h"
#include "cradle/calibrated.h"
#include "cradle/sweepoutput.h"
#include "cradle/table.h"
#include "cradle/compare.h"
#include "cradle/rigidlimit.h"
#include "cradle/sweepfile.h"
#include "cradle/sweep.h"
#include "cradle/store.h"
#include "cradle/runfile.h"
#include "cradle/comparefile.h"
#include "cradle/fit.h"

#endif
