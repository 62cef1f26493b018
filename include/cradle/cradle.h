/**
 * @file cradle.h
 * @brief Umbrella header of libcradle: multiple impacts in mechanics.
 */
#ifndef CRADLE_CRADLE_H
#define CRADLE_CRADLE_H

#include "cradle/common.h"
#include "cradle/event.h"
#include "cradle/compare.h"
#include "cradle/calibrate.h"
#include "cradle/contact.h"
#include "cradle/laws.h"
#include "cradle/lawcase.h"
#include "cradle/model.h"
#include "cradle/modelfile.h"
#include "cradle/monitor.h"
#include "cradle/rigid.h"
#include "cradle/runcompare.h"
#include "cradle/store.h"
#include "cradle/system.h"
#include "cradle/table.h"

#endif
