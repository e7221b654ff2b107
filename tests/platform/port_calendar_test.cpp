// PortCalendar against hand-worked timelines (first fit in time order).
#include <gtest/gtest.h>

#include "platform/noc/port_calendar.h"

TEST(PortCalendar, InOrderTransfersQueueBackToBack) {
  photon::PortCalendar p;
  EXPECT_DOUBLE_EQ(p.reserve(0, 16, 0), 0);
  EXPECT_DOUBLE_EQ(p.reserve(4, 16, 0), 16);   // waits for the first
  EXPECT_DOUBLE_EQ(p.reserve(40, 16, 0), 40);  // port idle by then
  EXPECT_DOUBLE_EQ(p.last_end(), 56);
}

// An initiator that ran ahead reserved [600, 601); a transfer arriving at 20 (earlier in time)
// is served at 20, not after 601; one that does not fit in the gap goes after the reservation.
TEST(PortCalendar, EarlierArrivalUsesTheGapBeforeAFutureReservation) {
  photon::PortCalendar p;
  EXPECT_DOUBLE_EQ(p.reserve(600, 1, 0), 600);
  EXPECT_DOUBLE_EQ(p.reserve(20, 16, 0), 20);
  EXPECT_DOUBLE_EQ(p.reserve(30, 16, 0), 36);    // after the one at 20
  EXPECT_DOUBLE_EQ(p.reserve(590, 16, 0), 601);  // the gap [52, 600) starts too early for it
  EXPECT_DOUBLE_EQ(p.last_end(), 617);
}

// Reservations that ended before global time are forgotten; an arrival never goes before itself.
TEST(PortCalendar, PastReservationsAreDropped) {
  photon::PortCalendar p;
  p.reserve(0, 100, 0);
  EXPECT_DOUBLE_EQ(p.reserve(150, 10, 120), 150);
  EXPECT_DOUBLE_EQ(p.reserve(140, 10, 120), 140);  // fits in [120, 150)
  EXPECT_DOUBLE_EQ(p.reserve(145, 10, 120), 160);
}
