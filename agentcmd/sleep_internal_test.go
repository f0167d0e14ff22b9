package agentcmd

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleepTimerStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleepTimer(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("sleepTimer on a cancelled context: %v, want context.Canceled", err)
	}
	if err := sleepTimer(context.Background(), time.Nanosecond); err != nil {
		t.Errorf("sleepTimer: %v", err)
	}
}
