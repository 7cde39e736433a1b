#pragma once
// qcustomplot.h is written with Qt's keywords (signals, slots, emit, foreach), which ui/ turns off
// (QT_NO_KEYWORDS, because LibTorch headers use `slots`). Include it through this header only, in
// files that include no LibTorch header.
#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach
