#include <gtest/gtest.h>
#include "platform/config/platform_config.h"
#include "platform/error.h"
TEST(Config, Defaults) { photon::PlatformConfig c; EXPECT_EQ(c.hbm.tRCD, 14u); }
