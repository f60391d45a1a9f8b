# A password reset takes the same four-eyes request as a two-factor reset: the request gains
# a kind, existing requests are two-factor ones.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('identity', '0005_password_change_and_totp_reset_requests'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='totpresetrequest',
            name='identity_one_pending_totp_reset',
        ),
        migrations.RenameModel(
            old_name='TotpResetRequest',
            new_name='CredentialResetRequest',
        ),
        migrations.AddField(
            model_name='credentialresetrequest',
            name='kind',
            field=models.CharField(choices=[('totp', 'two-factor setup'), ('password', 'password')], default='totp', max_length=16),
            preserve_default=False,
        ),
        migrations.AddConstraint(
            model_name='credentialresetrequest',
            constraint=models.UniqueConstraint(condition=models.Q(('status', 'pending')), fields=('operator', 'kind'), name='identity_one_pending_credential_reset'),
        ),
    ]
