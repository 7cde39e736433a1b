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

// The legend in a row of its own above the plot, so it never covers bars or lines.
inline void legendAbove(QCustomPlot* plot) {
  plot->legend->setVisible(true);
  plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot->legend->setBorderPen(Qt::NoPen);
  plot->axisRect()->insetLayout()->take(plot->legend);
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(0, 0, plot->legend);
  plot->plotLayout()->setRowStretchFactor(0, 0.001);
}
