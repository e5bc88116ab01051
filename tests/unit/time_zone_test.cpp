// The time zone written into every logfile header: bias, names and this
// year's transition dates, for zones with and without daylight saving time.
#include "platform/clock.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

namespace {

// Sets TZ for the duration of a test.
struct ScopedTz {
    std::string old;
    bool had;
    explicit ScopedTz(const char *tz)
    {
        const char *o = std::getenv("TZ");
        had = o != nullptr;
        old = o ? o : "";
        setenv("TZ", tz, 1);
        tzset();
    }
    ~ScopedTz()
    {
        if (had)
            setenv("TZ", old.c_str(), 1);
        else
            unsetenv("TZ");
        tzset();
    }
};

std::string name(const std::uint16_t *w)
{
    std::string s;
    for (int i = 0; i < 32 && w[i]; ++i)
        s.push_back(char(w[i]));
    return s;
}

int this_year()
{
    std::time_t now = std::time(nullptr);
    std::tm t;
    gmtime_r(&now, &t);
    return t.tm_year + 1900;
}

} // namespace

TEST(TimeZone, UtcHasNoBiasAndNoTransitions)
{
    ScopedTz tz("UTC");
    etw_time_zone_information z;
    openetw::platform::local_time_zone(&z);
    EXPECT_EQ(z.Bias, 0);
    EXPECT_EQ(z.DaylightBias, 0);
    EXPECT_EQ(z.StandardDate.wMonth, 0);
    EXPECT_EQ(z.DaylightDate.wMonth, 0);
    EXPECT_EQ(name(z.StandardName), "UTC");
}

TEST(TimeZone, LosAngelesHasBothTransitionsAtTwoInTheMorning)
{
    ScopedTz tz("America/Los_Angeles");
    etw_time_zone_information z;
    openetw::platform::local_time_zone(&z);
    EXPECT_EQ(z.Bias, 480); // UTC = local + 8 h
    EXPECT_EQ(z.StandardBias, 0);
    EXPECT_EQ(z.DaylightBias, -60);
    EXPECT_EQ(name(z.StandardName), "PST");
    EXPECT_EQ(name(z.DaylightName), "PDT");
    // Second Sunday of March and first Sunday of November, 02:00 local.
    EXPECT_EQ(z.DaylightDate.wYear, this_year());
    EXPECT_EQ(z.DaylightDate.wMonth, 3);
    EXPECT_EQ(z.DaylightDate.wDayOfWeek, 0);
    EXPECT_GE(z.DaylightDate.wDay, 8);
    EXPECT_LE(z.DaylightDate.wDay, 14);
    EXPECT_EQ(z.DaylightDate.wHour, 2);
    EXPECT_EQ(z.DaylightDate.wMinute, 0);
    EXPECT_EQ(z.StandardDate.wMonth, 11);
    EXPECT_EQ(z.StandardDate.wDayOfWeek, 0);
    EXPECT_LE(z.StandardDate.wDay, 7);
    EXPECT_EQ(z.StandardDate.wHour, 2);
}

TEST(TimeZone, SouthernHemisphereStartsTheYearInDaylightTime)
{
    ScopedTz tz("Australia/Sydney");
    etw_time_zone_information z;
    openetw::platform::local_time_zone(&z);
    EXPECT_EQ(z.Bias, -600); // UTC = local - 10 h
    EXPECT_EQ(z.DaylightBias, -60);
    EXPECT_EQ(z.StandardDate.wMonth, 4); // first Sunday of April, 03:00 daylight time
    EXPECT_EQ(z.StandardDate.wHour, 3);
    EXPECT_EQ(z.DaylightDate.wMonth, 10); // first Sunday of October, 02:00 standard time
    EXPECT_EQ(z.DaylightDate.wHour, 2);
}
